import Foundation
import IMProtocol
import IMStore
import PostgresTestSupport
import TestSupport
import Testing

/// `switchboard migrate`: a SQLite database moved into PostgreSQL answers every question
/// exactly as before (every message, cursor, account, login, group and invite), and goes
/// on from there.
@Suite struct SQLiteToPostgresTests {
    /// Everything a client or the server can ask of a store, as plain values.
    struct Answers: Equatable {
        var epoch: String
        var committed: Int64
        var users: [UserRecord]
        /// Each user's feed read from every cursor they could hold.
        var feeds: [String: [[Event]]]
        var conversations: [String: [Conversation]]
        var contacts: [String: [User]]
        var logins: [String: [TokenRecord]]
        var tokens: [[UInt8]: TokenRecord]
        var groups: [String: [ConversationInfo]]
        var history: [ConversationID: [Message]]
        var members: [ConversationID: [Member]]
        var records: [ConversationID: ConversationRecord]
        var invited: [String: Bool]
        var media: [String: MediaRecord]
        var bans: [ConversationID: [BanRecord]]
        var joinRequests: [String: [GroupJoinRequest]]
        var invitations: [String: [GroupInvite]]
        var blocked: [String: [User]]
        var leases: [String: LeaseRecord]
        var journals: [String: StoredJournal]
    }

    static let hashes: [[UInt8]] = (1...6).map { [UInt8($0), 7, 7] }

    /// A history with every kind of row: accounts (a bot, a suspended one, a deleted one),
    /// logins (replaced, logged out, live), contacts, groups with joins, leaves and a
    /// re-join, an invite used and one pending, a room, direct messages, replies, a client
    /// id, read markers, an avatar, new info, and retention that dropped the oldest events;
    /// and schema version 4's: group settings, a mute, a ban, a join request, a block, an
    /// edit and a deletion; and version 5's: a bot's lease and its journal; and version 9's: a notice.
    static func fill(_ store: any ServerStore, clock: TestClock) async throws -> [String] {
        let alice = try await store.makeUser("alice")
        let bob = try await store.makeUser("bob")
        let carol = try await store.makeUser("carol")
        let dave = try await store.makeUser("dave", isBot: true)
        let erin = try await store.makeUser("erin")
        _ = try await store.createToken(hash: hashes[0], userID: alice.id, device: "phone", expiresAt: nil)
        _ = try await store.createToken(hash: hashes[1], userID: alice.id, device: "phone", expiresAt: Timestamp(milliseconds: TestClock.start + 1_000_000_000))
        let logout = try await store.createToken(hash: hashes[2], userID: bob.id, device: nil, expiresAt: nil)
        try await store.revokeToken(id: logout.token.id, reason: "logout")
        _ = try await store.createToken(hash: hashes[3], userID: bob.id, device: "laptop", expiresAt: nil)
        _ = try await store.createToken(hash: hashes[4], userID: dave.id, device: nil, expiresAt: nil)
        _ = try await store.createToken(hash: hashes[5], userID: erin.id, device: nil, expiresAt: nil)

        let direct = try await store.directConversation(alice.id, bob.id)
        try await store.send("old news", to: direct.id, from: alice.id)
        clock.advance(milliseconds: 8 * 86_400_000)
        _ = try await store.pruneEvents(before: Timestamp(milliseconds: TestClock.start + 86_400_000))

        _ = try await store.addContact(alice.id, bob.id)
        _ = try await store.addContact(carol.id, alice.id)
        let ops = try await store.makeGroup("ops", owner: alice.id, members: [bob.id])
        let first = try await store.send("hello ops", to: ops.id, from: alice.id, clientID: "c-1")
        _ = try await store.appendMessage(
            NewMessage(conversationID: ops.id, senderID: bob.id, text: "a reply", replyTo: first.id))
        _ = try await store.invite(carol.id, to: ops.id, by: ActingUser(id: alice.id), notice: "carol was invited")
        _ = try await store.join(ops.id, carol.id, change: MembershipChange(event: .memberJoined, notice: "carol joined"))
        _ = try await store.removeMember(ops.id, bob.id, change: MembershipChange(event: .memberLeft, notice: "bob left"))
        try await store.send("without bob", to: ops.id, from: carol.id)
        _ = try await store.addMember(
            ops.id, bob.id, role: .member, change: MembershipChange(event: .memberJoined, notice: "bob is back"))
        _ = try await store.invite(erin.id, to: ops.id, by: ActingUser(id: alice.id), notice: "erin was invited")
        _ = try await store.updateInfo(
            ops.id, ConversationInfoUpdate(title: "Ops", description: "on call", join: .approval, newMembers: .restricted,
                slowMode: ConfigDuration(seconds: 30)),
            by: ActingUser(id: alice.id), notice: "new info")
        _ = try await store.moderate(
            ModerationAct(conversationID: ops.id, by: ActingUser(id: alice.id), action: .mute, target: carol.id,
                until: Timestamp(milliseconds: TestClock.start + 400 * 86_400_000), reason: "calm down", notice: "muted"))
        let edited = try await store.send("tpyo", to: ops.id, from: bob.id)
        // Slow mode: a member posts once in 30 seconds, and an edit counts as a post.
        clock.advance(milliseconds: 31_000)
        _ = try await store.editMessage(MessageEdit(conversationID: ops.id, messageID: edited.id, editor: bob.id, text: "typo"))
        clock.advance(milliseconds: 31_000)
        let deleted = try await store.send("oops", to: ops.id, from: bob.id)
        _ = try await store.deleteMessage(
            MessageDeletion(conversationID: ops.id, messageID: deleted.id, by: ActingUser(id: alice.id), notice: "removed"))
        let frank = try await store.makeUser("frank")
        _ = try await store.join(ops.id, frank.id, change: MembershipChange(event: .memberJoined, notice: "frank joined"))
        let grace = try await store.makeUser("grace")
        _ = try await store.moderate(
            ModerationAct(conversationID: ops.id, by: ActingUser(id: alice.id), action: .ban, target: grace.id,
                reason: "spam", notice: "grace was banned"))
        _ = try await store.block(alice.id, grace.id)
        let lounge = try await store.makeGroup("lounge", owner: bob.id, members: [dave.id], kind: .room)
        try await store.send("in the room", to: lounge.id, from: dave.id)
        _ = try await store.sendNotice(
            NewNotice(conversationID: lounge.id, senderID: dave.id, recipientID: bob.id, text: "only bob sees this",
                      clientID: "n-1"))
        try await store.send("hi alice", to: direct.id, from: bob.id)
        _ = try await store.markRead(direct.id, alice.id, seq: 2)
        _ = try await store.setAvatar(
            carol.id, contentType: "image/png", bytes: [0x89, 0x50, 0x4E, 0x47] + Array(repeating: 9, count: 100),
            sha256: Array(repeating: 9, count: 32), budget: 1 << 20)
        _ = try await store.updateProfile(alice.id, ProfileUpdate(nickname: "Ally", attrs: ["team": "ops"]))
        try await store.setPasswordHash(carol.id, "newer-hash", revokeTokens: true)
        _ = try await store.setSuspended(erin.id, true)
        _ = try await store.deleteUser(dave.id)
        let ivy = try await store.makeUser("ivy", isBot: true)
        guard case .granted(let lease) = try await store.acquireLease(ivy.id, holder: "runner-a/1", ttl: 600_000) else {
            throw StoreTestError("ivy's lease was not granted")
        }
        _ = try await store.replaceJournalSnapshot(ivy.id, fence: lease.fence, snapshot: "{\"sequence\":2}", limit: 1 << 20)
        _ = try await store.appendJournal(ivy.id, fence: lease.fence, records: ["{\"seq\":3}", "{\"seq\":4}"], limit: 1 << 20)
        return ["alice", "bob", "carol", SQLiteStore.deletedName(dave.id), "erin", "frank", "grace", "ivy"]
    }

    static func answers(_ store: any ServerStore, names: [String], clock: TestClock) async throws -> Answers {
        var answers = Answers(
            epoch: store.epoch, committed: store.committedPosition, users: try await store.listUsers(after: nil, limit: 100),
            feeds: [:], conversations: [:], contacts: [:], logins: [:], tokens: [:], groups: [:], history: [:],
            members: [:], records: [:], invited: [:], media: [:], bans: [:], joinRequests: [:], invitations: [:],
            blocked: [:], leases: [:], journals: [:])
        for hash in hashes { answers.tokens[hash] = try await store.token(hash: hash)?.0 }
        for name in names {
            let user = try #require(try await store.user(named: name))
            let whole = try await store.feed(user.id)
            var reads: [[Event]] = []
            for cursor in [user.feedFloor] + whole.map(\.position) {
                reads.append(try await store.events(for: user.id, after: cursor, limit: 3))
            }
            answers.feeds[name] = reads
            let conversations = try await store.conversations(for: user.id)
            answers.conversations[name] = conversations
            answers.contacts[name] = try await store.contacts(of: user.id)
            answers.joinRequests[name] = try await store.joinRequests(for: user.id)
            answers.invitations[name] = try await store.invitations(for: user.id)
            answers.blocked[name] = try await store.blocked(by: user.id)
            answers.leases[name] = try await store.lease(of: user.id)
            answers.journals[name] = try await store.journal(of: user.id)
            answers.logins[name] = try await store.liveTokens(of: user.id, at: clock.now)
            answers.groups[name] =
                try await store.conversationInfos(for: user.id, kind: .group)
                + store.conversationInfos(for: user.id, kind: .room)
            if let avatar = user.user.avatarURL.split(separator: "/").last, user.user.avatarURL.hasPrefix("/v1/media/") {
                answers.media[name] = try await store.media(id: String(avatar))
            }
            for conversation in conversations {
                answers.history[conversation.id] = try await store.messages(conversation.id, before: nil, limit: 100)
                answers.members[conversation.id] = try await store.members(conversation.id)
                answers.records[conversation.id] = try await store.conversation(id: conversation.id)
                answers.invited["\(name)@\(conversation.id)"] = try await store.isInvited(user.id, to: conversation.id)
                answers.bans[conversation.id] = try await store.bans(conversation.id)
            }
        }
        return answers
    }

    @Test(.timeLimit(.minutes(2)))
    func aMovedDatabaseAnswersEverythingAsBeforeAndGoesOn() async throws {
        let clock = TestClock(step: 1)
        try await StoreFixture.with(.sqlite) { fixture in
            let sqlite = try await fixture.open(clock: clock)
            let names = try await Self.fill(sqlite, clock: clock)
            let before = try await Self.answers(sqlite, names: names, clock: clock)
            await sqlite.close()
            #expect(before.users.count == 8 && before.feeds.values.allSatisfy { !$0.isEmpty })
            #expect(before.journals["ivy"]?.records.count == 2 && before.leases["ivy"]?.holder == "runner-a/1")
            // As a restore leaves it: the epoch of the database it was restored from, whose
            // cursors read on up to the backup's last position.
            try fixture.execute("INSERT INTO meta (key, value) VALUES ('earlier_epochs', 'before1:4')")

            let cluster = try await PostgresTestCluster.shared()
            let database = PostgresTestDatabase(cluster: cluster, name: try await cluster.createDatabase())
            try await ensuring({
                let report = try await SQLiteToPostgres(directory: fixture.directoryPath, target: database.configuration)
                    .run()
                #expect(report.epoch == before.epoch && report.position == before.committed)
                #expect(report.rows.first { $0.table == "messages" }?.count ?? 0 > 10)

                let postgres = try await PostgresStore.open(
                    PostgresStore.Configuration(connection: database.configuration, readConnections: 2),
                    clock: clock.function)
                try await closing(postgres) { store in
                    let after = try await Self.answers(store, names: names, clock: clock)
                    #expect(after == before)
                    #expect(store.acceptsCursor(epoch: "before1", position: 4))
                    #expect(!store.acceptsCursor(epoch: "before1", position: 5))
                    #expect(!store.acceptsCursor(epoch: "another", position: 1))
                    // It goes on: new rows take new ids, new events later positions, and
                    // every cursor of before reads on from where it was.
                    let henry = try await store.makeUser("henry")
                    #expect(henry.id.rawValue > (before.users.map(\.id.rawValue).max() ?? 0))
                    let bob = try #require(try await store.user(named: "bob"))
                    let ops = try #require(try await store.conversation(kind: .group, name: "ops"))
                    clock.advance(milliseconds: 31_000)
                    let sent = try await store.send("after the move", to: ops.id, from: bob.id)
                    let next = try await store.events(for: bob.id, after: before.committed, limit: 10)
                    #expect(next.map(\.message?.id) == [sent.id])
                    #expect(next.first.map { $0.position > before.committed } == true)
                    // The runner that held ivy's lease goes on holding it, under its fence.
                    let ivy = try #require(try await store.user(named: "ivy"))
                    let fence = try #require(before.leases["ivy"]?.fence)
                    #expect(try await store.acquireLease(ivy.id, holder: "runner-b/1", ttl: 1000)
                            == .held(try #require(before.leases["ivy"])))
                    _ = try await store.appendJournal(ivy.id, fence: fence, records: ["{\"seq\":5}"], limit: 1 << 20)
                    #expect(try await store.journal(of: ivy.id).records.count == 3)
                }
                // A second move into the same database is refused and changes nothing.
                let again = await outcome {
                    try await SQLiteToPostgres(directory: fixture.directoryPath, target: database.configuration).run()
                }
                #expect((again.failure as? StoreError).map { if case .conflict = $0 { true } else { false } } == true)
            }) {
                try? await cluster.dropDatabase(database.name)
            }
        }
    }
}
