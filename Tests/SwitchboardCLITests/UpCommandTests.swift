#if canImport(Glibc)
import Glibc
#endif
import Foundation
import IMProtocol
import TestSupport
import Testing

/// `switchboard up` as a user starts it: the shipped bots, nothing set in the
/// environment, the embedded server and the runner in one process.
@Suite("switchboard up")
struct UpCommandTests {
    /// The help desk's account (`register: true`, no password set) is made through the
    /// embedded server's local administration credential, and the bot answers; SIGTERM
    /// then stops the runner and the server, exit 0.
    @Test(.timeLimit(.minutes(3)))
    func theShippedHelpDeskGetsItsAccountWithNothingSetAndAnswers() async throws {
        let binary = try #require(switchboardExecutable, "build the switchboard executable first (swift build)")
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let config = try sandbox.write("config.yaml", """
            log_level: info
            server:
              listen: 127.0.0.1:0
              data: \(sandbox.path("data"))
              durability: normal
            runner:
              listen: 127.0.0.1:0
              bots: \(repository)/bots
              state: \(sandbox.path("data/bots"))
              admin_token: ${SWITCHBOARD_ADMIN_TOKEN:-}

            """)
        // Only what a shell would pass; no password, no administration token.
        let environment = ["PATH": "/usr/bin:/bin", "HOME": sandbox.path("home")]
        let up = try SpawnedProcess(binary, ["up", "--config", config], environment: environment)
        try await ensuring({
            var baseURL = ""
            try await eventually("the server listening") {
                guard let url = Self.listeningURL(in: up.errors) else { return up.exitStatus != nil }
                baseURL = url
                return true
            }
            #expect(up.exitStatus == nil, "up ended: \(up.errors)")
            let (alice, _) = try await TestClient(baseURL: baseURL).register("alice")
            try await eventually("the help desk polls") { up.errors.contains("bot helpdesk is running as helpdesk") }
            #expect(up.errors.contains("created the bot account helpdesk"))
            let sent = try await alice.send(
                "POST", "/v1/conversations/user:helpdesk/messages", json: SendMessageRequest(text: "/help"))
            #expect(sent.status == 201)
            var replies: [String] = []
            try await eventually("the help desk's reply") {
                let page = try await alice.get("/v1/conversations/user:helpdesk/messages").decode(MessagePage.self)
                replies = page.messages.filter { $0.sender == "helpdesk" }.map(\.text)
                return !replies.isEmpty
            }
            #expect(replies.first?.hasPrefix("I can help with:") == true, "\(replies)")
            #expect(try await up.stop(SIGTERM) == 0, "\(up.errors)")
        }) {
            if up.exitStatus == nil { _ = try? await up.stop(SIGKILL) }
        }
        // The generated password is kept private.
        let attributes = try FileManager.default.attributesOfItem(atPath: sandbox.path("data/bots/helpdesk/password"))
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }

    /// The server's URL from its "server listening on http://…" log line.
    static func listeningURL(in log: String) -> String? {
        guard let range = log.range(of: "server listening on http://127.0.0.1:") else { return nil }
        let port = log[range.upperBound...].prefix { $0.isNumber }
        return port.isEmpty ? nil : "http://127.0.0.1:\(port)"
    }
}
