import Foundation
import IMProtocol
import IMStore
import Testing

/// A database written by a server of schema version 1 (one feed row per recipient),
/// upgraded in place: `Fixtures/feed-v1.sql` is its dump, and `feed-v1.json` what the old
/// server answered from every cursor it handed out (both made by
/// `Fixtures/make-feed-v1.py`: direct messages, a group with a leave and a re-join, a room
/// entered and left, new info, a profile change, a contact, a read marker).
@Suite struct FeedMigrationTests {
    struct Recorded: Decodable {
        var ids: [String: Int64]
        var checks: [Check]
    }

    struct Check: Decodable {
        var user: String
        var cursor: String
        var events: [RecordedEvent]
    }

    struct RecordedEvent: Decodable, Equatable {
        var position: Int64
        var type: String
        var address: String?
        var message_id: String?
        var text: String?
        var user: String?
        var seq: Int64?

        init(position: Int64, type: String, address: String?, message_id: String?, text: String?, user: String?, seq: Int64?) {
            (self.position, self.type, self.address, self.message_id, self.text, self.user, self.seq) =
                (position, type, address, message_id, text, user, seq)
        }

        init(_ event: Event) {
            self.init(
                position: event.position, type: event.type.rawValue, address: event.conversation?.address.description,
                message_id: event.message.map { String($0.id.rawValue) }, text: event.message?.text,
                user: event.user?.username, seq: event.seq)
        }
    }

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// A store directory holding the version-1 database, not yet opened by the store.
    static func oldDatabase() throws -> (TemporaryDirectory, Recorded) {
        let directory = try TemporaryDirectory()
        let dump = try String(contentsOf: fixtures.appendingPathComponent("feed-v1.sql"), encoding: .utf8)
        let connection = try SQLiteConnection(path: storePath(directory))
        try connection.executeScript(dump)
        #expect(try connection.scalar("PRAGMA user_version") == 1)
        let recorded = try JSONDecoder().decode(
            Recorded.self, from: Data(contentsOf: fixtures.appendingPathComponent("feed-v1.json")))
        return (directory, recorded)
    }

    static func position(of cursor: String) throws -> Int64 {
        let digits = try #require(cursor.split(separator: ".").last)
        return try #require(Int64(digits, radix: 36))
    }

    @Test func everyCursorOfTheOldDatabaseReadsExactlyWhatTheOldServerAnswered() async throws {
        let (directory, recorded) = try Self.oldDatabase()
        defer { directory.remove() }
        try await closing(try openStore(directory)) { store async throws in
            #expect(recorded.checks.count > 20)
            for check in recorded.checks {
                let user = UserID(rawValue: try #require(recorded.ids[check.user]))
                let events = try await store.events(for: user, after: try Self.position(of: check.cursor), limit: 1000)
                #expect(events.map(RecordedEvent.init) == check.events, "\(check.user) from \(check.cursor)")
            }
        }
    }

    @Test func afterTheUpgradeEveryFeedGoesOnFromItsNewestCursorWithoutRepeatsOrGaps() async throws {
        let (directory, recorded) = try Self.oldDatabase()
        defer { directory.remove() }
        try await closing(try openStore(directory)) { store async throws in
            let id = { (name: String) in UserID(rawValue: recorded.ids[name] ?? 0) }
            // Where each user's client stands: the end of its feed as the old server gave it.
            var newest: [String: Int64] = [:]
            for check in recorded.checks {
                let end = try check.events.last?.position ?? Self.position(of: check.cursor)
                newest[check.user] = max(newest[check.user] ?? 0, end)
            }
            let before = store.committedPosition
            #expect(newest.values.allSatisfy { $0 <= before })

            let ops = try #require(try await store.conversation(kind: .group, name: "ops"))
            let lobby = try #require(try await store.conversation(kind: .room, name: "lobby"))
            let direct = try await store.directConversation(id("alice"), id("bob"))
            let toOps = try await store.send("after the upgrade", to: ops.id, from: id("carol"))
            let toLobby = try await store.send("still here", to: lobby.id, from: id("dave"))
            let toBob = try await store.send("new layout", to: direct.id, from: id("alice"))

            let expected: [String: [MessageID]] = [
                "alice": [toOps.id, toBob.id], "bob": [toOps.id, toBob.id], "carol": [toOps.id],
                "dave": [toLobby.id], "erin": [toLobby.id],
            ]
            for (name, messages) in expected {
                let from = try #require(newest[name])
                let events = try await store.events(for: id(name), after: from, limit: 1000)
                #expect(events.compactMap(\.message?.id) == messages, "\(name)")
                #expect(events.allSatisfy { $0.position > before }, "\(name)")
            }
            // The old rows are still read, in their places, before the new events.
            let whole = try await store.events(for: id("bob"), after: 0, limit: 1000)
            #expect(zip(whole, whole.dropFirst()).allSatisfy { $0.position < $1.position })
            #expect(whole.suffix(2).compactMap(\.message?.id) == [toOps.id, toBob.id])
            #expect(whole.first?.message?.text == "hi bob")
        }
    }

    @Test func theUpgradeKeepsTheEpochAndThePositionCounter() async throws {
        let (directory, _) = try Self.oldDatabase()
        defer { directory.remove() }
        let connection = try SQLiteConnection(path: storePath(directory))
        let epoch = try #require(try connection.first("SELECT value FROM meta WHERE key = 'epoch'", as: { $0.text(0) }))
        let text = try #require(try connection.first("SELECT value FROM meta WHERE key = 'feed_position'", as: { $0.text(0) }))
        let last = try #require(Int64(text))
        try await closing(try openStore(directory)) { store async throws in
            #expect(store.epoch == epoch)
            #expect(store.committedPosition == last)
            #expect(try connection.scalar("PRAGMA user_version") == Int64(Schema.migrations.map(\.version).max() ?? 0))
        }
    }

    /// Schema version 10: a database of version 9 (made here by taking a new one back:
    /// no message positions, the events' index holding every event) gains each message's
    /// position from its event, and every feed reads as it did before the upgrade, from
    /// every position.
    @Test func aVersion9DatabaseGainsMessagePositionsAndReadsAsBefore() async throws {
        let directory = try TemporaryDirectory()
        var users: [UserID] = []
        var before: [UserID: [Event]] = [:]
        try await closing(try openStore(directory)) { store in
            let alice = try await store.makeUser("alice").id
            let bob = try await store.makeUser("bob").id
            users = [alice, bob]
            let group = try await store.makeGroup("g", owner: alice, members: [bob]).id
            let direct = try await store.directConversation(alice, bob).id
            for step in 0..<40 {
                _ = try await store.send("m\(step)", to: step % 3 == 0 ? direct : group, from: step % 2 == 0 ? alice : bob)
            }
            for user in users { before[user] = try await store.events(for: user, after: 0, limit: 1_000) }
        }
        let connection = try SQLiteConnection(path: storePath(directory))
        #expect(try connection.scalar("SELECT count(*) FROM messages WHERE position IS NOT NULL") == 40)
        try connection.executeScript("""
            ALTER TABLE messages DROP COLUMN position;
            DROP INDEX conversation_events_by_conversation;
            CREATE INDEX conversation_events_by_conversation ON conversation_events(conversation_id, position);
            PRAGMA user_version = 9;
            """)
        try await closing(try openStore(directory)) { store in
            for user in users {
                let feed = try await store.events(for: user, after: 0, limit: 1_000)
                #expect(feed == before[user])
                for index in feed.indices {
                    #expect(try await store.events(for: user, after: feed[index].position, limit: 2)
                        == Array(feed[(index + 1)...].prefix(2)))
                }
            }
        }
        // Every message with an event of its own has its position; the system messages
        // others carry have none.
        #expect(try connection.scalar("PRAGMA user_version") == 10)
        #expect(try connection.scalar(
            "SELECT count(*) FROM messages m JOIN conversation_events e ON e.message_id = m.id AND e.type = 'message' WHERE m.position = e.position") == 40)
        #expect(try connection.scalar("SELECT count(*) FROM messages WHERE position IS NULL AND type = 'system'") ?? 0 > 0)
        #expect(try connection.scalar(
            "SELECT count(*) FROM messages WHERE position IS NULL AND type <> 'system'") == 0)
    }
}
