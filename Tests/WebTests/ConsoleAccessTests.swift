import Foundation
import HTTPServer
@testable import IMBots
import IMClient
import IMProtocol
import Lifecycle
import TestSupport
import Testing

/// Who the operator console lets in, and how it follows the audit log, without a browser.
@Suite struct ConsoleAccessTests {
    @Test func theMetricsTokenAndAnAdministratorsLoginLetInAndNobodyElse() async throws {
        try await withServer { server in
            let root = try await server.createAccount("root", password: "root password 1", admin: true).client
            let loginsBefore = try await root.get("/v1/me/sessions").decode(SessionList.self).sessions.count
            _ = try await server.client.register("alice", password: "alice password 1")
            let time = ManualTime()
            let logins = ConsoleLogins(metricsToken: "metrics-token-0123456789", serverURL: server.baseURL,
                                       transport: TestClient.sharedTransport, time: time)
            #expect(logins.caller("Bearer metrics-token-0123456789") == "metrics token")
            #expect(logins.caller("Bearer metrics-token-012345678") == nil)
            #expect(logins.caller(nil) == nil)
            #expect(logins.caller("Basic metrics-token-0123456789") == nil)

            await #expect(throws: ConsoleError.self) { try await logins.logIn(username: "alice", password: "alice password 1") }
            await #expect(throws: ConsoleError.self) { try await logins.logIn(username: "root", password: "wrong password") }
            let token = try await logins.logIn(username: "root", password: "root password 1")
            #expect(token.hasPrefix("sbc_"))
            #expect(logins.caller("Bearer \(token)") == "root")
            // The administrator's server login was ended at once: the console keeps its own.
            let sessions = try await root.get("/v1/me/sessions").decode(SessionList.self)
            #expect(sessions.sessions.count == loginsBefore)

            // A console login lasts 12 hours, and a logout ends it sooner.
            time.advance(by: .seconds(12 * 3600 + 1))
            #expect(logins.caller("Bearer \(token)") == nil)
            let second = try await logins.logIn(username: "root", password: "root password 1")
            logins.logOut("Bearer \(second)")
            #expect(logins.caller("Bearer \(second)") == nil)
        }
    }

    @Test func theAuditTailReadsWholeLinesAfterAnOffsetAndStartsOverAfterRotation() throws {
        let path = NSTemporaryDirectory() + "audit-\(UUID().uuidString).log"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let tail = AuditTail(path: path)
        #expect(try tail.read(after: nil).lines.isEmpty)
        try Data("{\"n\":1}\n{\"n\":2}\n{\"n\":3".utf8).write(to: URL(fileURLWithPath: path))
        let first = try tail.read(after: nil)
        #expect(first.lines == ["{\"n\":1}", "{\"n\":2}"])
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("}\n{\"n\":4}\n".utf8))
        try handle.close()
        let next = try tail.read(after: first.next)
        #expect(next.lines == ["{\"n\":3}", "{\"n\":4}"])
        #expect(try tail.read(after: next.next).lines.isEmpty)
        // logrotate's copytruncate: the file is shorter than the offset, read from its start.
        try Data("{\"n\":5}\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect(try tail.read(after: next.next).lines == ["{\"n\":5}"])
    }
}
