import Foundation
import IMProtocol
import IMStore
import Synchronization
import TestSupport
import Testing

/// `switchboard backup` of a live server and `switchboard restore` into a data folder:
/// everything acknowledged before the backup is there after the restore, and a file that
/// is not a whole Switchboard database of a known version replaces nothing.
@Suite("switchboard backup and restore")
struct BackupCommandTests {
    static let password = "correct horse battery"

    /// Alice's messages to bob, sent one after another until `stop`, at most `limit`.
    final class Sender: Sendable {
        private final class State: Sendable {
            let acknowledged = Mutex<[Int64]>([])
            let stopped = Atomic<Bool>(false)
        }

        private let state = State()
        private let task: Task<Void, any Error>

        init(_ alice: TestClient, limit: Int) {
            task = Task { [state] in
                for index in 1...limit where !state.stopped.load(ordering: .relaxed) {
                    let answer = try await alice.send(
                        "POST", "/v1/conversations/user:bob/messages", json: SendMessageRequest(text: "m\(index)"))
                    guard answer.status == 201 else { throw TestFailure("send m\(index): \(answer.status) \(answer.text)") }
                    let seq = try answer.decode(Message.self).seq
                    state.acknowledged.withLock { $0.append(seq) }
                }
            }
        }

        var count: Int { state.acknowledged.withLock { $0.count } }

        /// Stops sending; the sequence numbers of every message the server acknowledged.
        func stop() async throws -> [Int64] {
            state.stopped.store(true, ordering: .relaxed)
            try await task.value
            return state.acknowledged.withLock { $0 }
        }
    }

    /// A sandbox whose folder exists (backups are written into it).
    static func sandbox() throws -> Sandbox {
        let sandbox = Sandbox()
        try FileManager.default.createDirectory(atPath: sandbox.directory, withIntermediateDirectories: true)
        return sandbox
    }

    static func history(_ client: TestClient, _ address: String) async throws -> [Message] {
        var messages: [Message] = []
        var before: Int64?
        repeat {
            let page = try await client.get(
                "/v1/conversations/\(address)/messages?limit=100" + (before.map { "&before=\($0)" } ?? "")
            ).decode(MessagePage.self)
            messages += page.messages
            before = page.nextBefore
        } while before != nil
        return messages.reversed()
    }

    static func poll(_ client: TestClient, after cursor: String) async throws -> TestClient.Answer {
        try await client.get("/v1/events?timeout=0&limit=1000&cursor=\(cursor)")
    }

    @Test func aBackupOfALiveServerUnderWritesRestoresEveryAccountMessageAndCursor() async throws {
        let sandbox = try Self.sandbox()
        defer { sandbox.remove() }
        let backup = sandbox.path("backups/switchboard.sqlite")
        try FileManager.default.createDirectory(atPath: sandbox.path("backups"), withIntermediateDirectories: true)
        var sent: [Int64] = []
        var sentBeforeBackup = 0
        var cursorBefore = ""
        var cursorAfter = ""
        try await withServer { server in
            let (alice, _) = try await server.client.register("alice", password: Self.password)
            let (bob, _) = try await server.client.register("bob", password: Self.password)
            let (carol, _) = try await server.client.register("carol", password: Self.password)
            _ = try await carol.send("POST", "/v1/groups", json: CreateConversationRequest(name: "ops", join: .open))
            _ = try await bob.send("POST", "/v1/groups/ops/join")
            _ = try await carol.send("POST", "/v1/conversations/group:ops/messages", json: SendMessageRequest(text: "standup at 10"))
            cursorBefore = try await Self.poll(bob, after: try await bob.get("/v1/events").decode(EventBatch.self).cursor)
                .decode(EventBatch.self).cursor

            let sender = Sender(alice, limit: 2000)
            try await eventually("some messages sent") { sender.count >= 20 }
            sentBeforeBackup = sender.count
            // The sender goes on writing while the backup runs. How many sends land during
            // it depends on the machine (a quick backup may see none), so what is checked
            // is the restored copy: everything before, then a prefix with no gap.
            let result = await sandbox.run(["backup", "--data", server.directory, "--to", backup])
            sent = try await sender.stop()
            cursorAfter = try await bob.get("/v1/events").decode(EventBatch.self).cursor

            #expect(result.status == 0, "\(result.errors)")
            #expect(result.outputLines.first?.hasPrefix(
                "backed up \(server.directory)/switchboard.sqlite to \(backup): schema version \(Schema.latestVersion), 3 accounts, ") == true)
        }
        #expect(!FileManager.default.fileExists(atPath: backup + "-wal"))

        let restoredFolder = sandbox.path("restored")
        let restore = await sandbox.run(["restore", "--data", restoredFolder, "--from", backup])
        #expect(restore.status == 0, "\(restore.errors)")
        #expect(restore.outputLines.first?.hasPrefix("restored \(backup) into \(restoredFolder): schema version ") == true)

        let server = try await TestServer.start(directory: restoredFolder)
        try await ensuring({
            let alice = try await server.client.login("alice", password: Self.password)
            let bob = try await server.client.login("bob", password: Self.password)
            _ = try await server.client.login("carol", password: Self.password)

            // Everything acknowledged before the backup began, in order and whole; what came
            // during it, a prefix of it with nothing missing in between.
            let messages = try await Self.history(bob, "user:alice")
            #expect(messages.count >= sentBeforeBackup)
            #expect(messages.map(\.seq) == Array(sent.prefix(messages.count)))
            #expect(messages.map(\.text) == (0..<messages.count).map { "m\($0 + 1)" })
            let group = try await Self.history(bob, "group:ops").map(\.text)
            #expect(group == ["carol created the group", "bob joined the group", "standup at 10"])
            #expect(try await Self.history(alice, "user:bob").count == messages.count)

            // A cursor from before the backup reads on, in the restored database's epoch;
            // one from after it (a timeline the restore undid) is refused, not misread.
            let resumed = try await Self.poll(bob, after: cursorBefore)
            #expect(resumed.status == 200, "\(resumed.text)")
            let batch = try resumed.decode(EventBatch.self)
            #expect(batch.events.compactMap(\.message?.text).prefix(3) == ["m1", "m2", "m3"])
            #expect(batch.cursor.split(separator: ".")[1] != cursorBefore.split(separator: ".")[1])
            #expect(try await Self.poll(bob, after: batch.cursor).status == 200)
            #expect(try await Self.poll(bob, after: cursorAfter).error?.code == .cursorExpired)
        }) {
            await server.stop()
        }
    }

    @Test func restoreKeepsTheDatabaseItReplaces() async throws {
        let sandbox = try Self.sandbox()
        defer { sandbox.remove() }
        let backup = sandbox.path("before-carol.sqlite")
        var folder = ""
        try await withRestartableServer { handle in
            _ = try await handle.server.client.register("alice", password: Self.password)
            #expect(await sandbox.run(["backup", "--data", handle.server.directory, "--to", backup]).status == 0)
            _ = try await handle.server.client.register("carol", password: Self.password)
            folder = handle.server.directory
            await handle.server.stop()

            let restore = await sandbox.run(["restore", "--data", folder, "--from", backup])
            #expect(restore.status == 0, "\(restore.errors)")
            let kept = try #require(restore.outputLines.last?.split(separator: " ").last.map(String.init))
            #expect(kept.hasPrefix(folder + "/switchboard.before-restore-") && kept.hasSuffix(".sqlite"))
            #expect(try await DatabaseBackup.inspect(kept).accounts == 2)

            let server = try await handle.restart()
            #expect(try await server.client.login("alice", password: Self.password).token != nil)
            let carol = try await server.client.send("POST", "/v1/login", json: LoginRequest(username: "carol", password: Self.password))
            #expect(carol.status == 401)
        }
    }

    /// What restore refuses, and that it replaced nothing then: the running server (or
    /// the stopped one's folder) still has its database as it was.
    @Test func restoreRefusesWhileAServerHoldsTheFolder() async throws {
        let sandbox = try Self.sandbox()
        defer { sandbox.remove() }
        let backup = sandbox.path("backup.sqlite")
        try await withServer { server in
            _ = try await server.client.register("alice", password: Self.password)
            #expect(await sandbox.run(["backup", "--data", server.directory, "--to", backup]).status == 0)

            let restore = await sandbox.run(["restore", "--data", server.directory, "--from", backup])

            #expect(restore.status == 1)
            #expect(restore.errorLines.first?.hasPrefix(
                "switchboard: a switchboard server is running on the data folder \(server.directory) (pid \(getpid())); stop it first") == true)
            _ = try await server.client.login("alice", password: Self.password)
        }
    }

    static func refusal(of file: String, _ sandbox: Sandbox) async throws -> CLIResult {
        let folder = sandbox.path("data")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("the database that must stay".utf8).write(to: URL(fileURLWithPath: folder + "/switchboard.sqlite"))
        let result = await sandbox.run(["restore", "--data", folder, "--from", file])
        #expect(try String(contentsOfFile: folder + "/switchboard.sqlite", encoding: .utf8) == "the database that must stay")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["switchboard.lock", "switchboard.sqlite"])
        return result
    }

    @Test func restoreRefusesAFileThatIsNotADatabase() async throws {
        let sandbox = try Self.sandbox()
        defer { sandbox.remove() }
        let file = try sandbox.write("notes.txt", "these are not the rows you are looking for\n" + String(repeating: "x", count: 5000))

        let result = try await Self.refusal(of: file, sandbox)

        #expect(result.status == 1)
        #expect(result.errorLines == ["switchboard: \(file) is not a SQLite database"])
    }

    @Test func restoreRefusesAnotherProgramsSQLiteDatabase() async throws {
        let sandbox = try Self.sandbox()
        defer { sandbox.remove() }
        let file = sandbox.path("other.sqlite")
        try SQLiteConnection(path: file).executeScript("CREATE TABLE t (x); INSERT INTO t VALUES (1); PRAGMA user_version = 2;")

        let result = try await Self.refusal(of: file, sandbox)

        #expect(result.status == 1)
        #expect(result.errorLines == ["switchboard: \(file) is a SQLite database, but not a Switchboard one"])
    }

    @Test func restoreRefusesANewerSchema() async throws {
        let sandbox = try Self.sandbox()
        defer { sandbox.remove() }
        let file = sandbox.path("newer.sqlite")
        try await withServer { server in
            #expect(await sandbox.run(["backup", "--data", server.directory, "--to", file]).status == 0)
        }
        try SQLiteConnection(path: file).executeScript("PRAGMA user_version = \(Schema.latestVersion + 1);")

        let result = try await Self.refusal(of: file, sandbox)

        #expect(result.status == 1)
        #expect(result.errorLines == [
            "switchboard: \(file) has schema version \(Schema.latestVersion + 1), newer than this program's "
                + "\(Schema.latestVersion): restore it with the switchboard that wrote it, or a newer one",
        ])
    }

    @Test func backupNeedsADatabaseAndWillNotOverwriteIt() async throws {
        let sandbox = try Self.sandbox()
        defer { sandbox.remove() }
        let empty = sandbox.path("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let none = await sandbox.run(["backup", "--data", empty, "--to", sandbox.path("b.sqlite")])
        #expect(none.status == 1)
        #expect(none.errorLines == ["switchboard: no database in \(empty) (no switchboard.sqlite): is it the server's data folder?"])

        try await withServer { server in
            let itself = await sandbox.run(["backup", "--data", server.directory, "--to", server.directory + "/switchboard.sqlite"])
            #expect(itself.status == 1)
            #expect(itself.errorLines.first?.contains("is the database itself") == true)
            _ = try await server.client.register("alice", password: Self.password)
        }

        let usage = await sandbox.run(["backup", "--data", empty])
        #expect(usage.status == 2)
        #expect(usage.errorLines.first == "switchboard: --to FILE is needed: where the backup goes")
    }
}
