import Foundation
import IMProtocol
import TestSupport
import Testing

@Suite("switchboard migrate")
struct MigrateCommandTests {
    @Test func aDataFolderMovesToPostgreSQLAndItsClientsGoOnWhereTheyWere() async throws {
        let sqlite = try await TestServer.start()
        defer { sqlite.removeData() }
        let (alice, _) = try await sqlite.client.register("alice")
        let (bob, _) = try await sqlite.client.register("bob")
        let cursor = try await bob.get("/v1/events").decode(EventBatch.self).cursor
        let sent = try await alice.send(
            "POST", "/v1/conversations/user:bob/messages", json: SendMessageRequest(text: "before the move")
        ).decode(Message.self)
        await sqlite.stop()

        try await withEmptyPostgresDatabase { url in
            let sandbox = Sandbox()
            defer { sandbox.remove() }
            let moved = await sandbox.run(["migrate", "--from", sqlite.directory, "--to", url])
            #expect(moved.status == 0, "\(moved.errors)")
            #expect(moved.outputLines.contains("users: 2 rows"))
            #expect(moved.outputLines.last?.hasPrefix("moved \(sqlite.directory) to postgresql://switchboard_test:***@") == true)

            let postgres = try await TestServer.start { $0.store = .postgres(url: url) }
            do {
                // The same logins, cursors and history, on the new store.
                let bobThere = TestClient(server: postgres, token: bob.token)
                let batch = try await bobThere.get("/v1/events?cursor=\(cursor)&timeout=0").decode(EventBatch.self)
                #expect(batch.events.compactMap(\.message) == [sent])
                let history = try await bobThere.get("/v1/conversations/user:alice/messages").decode(MessagePage.self)
                #expect(history.messages == [sent])
                let listed = await sandbox.run(["user", "list", "--store", url])
                #expect(listed.status == 0, "\(listed.errors)")
                #expect(listed.outputLines.map { $0.split(separator: "\t").first } == ["alice", "bob"])
            } catch {
                await postgres.stop()
                throw error
            }
            await postgres.stop()

            // A second move into the same database is refused; so is a wrong --to.
            let again = await sandbox.run(["migrate", "--from", sqlite.directory, "--to", url])
            #expect(again.status == 1)
            #expect(again.errors.contains("holds a Switchboard already"))
            let wrong = await sandbox.run(["migrate", "--from", sqlite.directory, "--to", "mysql://x"])
            #expect(wrong.status == 2)
            #expect(wrong.errorLines.first == "switchboard: --to 'mysql://x' is not a postgres:// URL")
        }
    }
}
