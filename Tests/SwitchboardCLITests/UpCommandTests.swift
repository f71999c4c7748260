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
        try await ShippedUp.run { up in
            let (alice, _) = try await TestClient(baseURL: up.baseURL).register("alice")
            try await eventually("the help desk polls") { up.process.errors.contains("bot helpdesk is running as helpdesk") }
            #expect(up.process.errors.contains("created the bot account helpdesk"))
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
            // The generated password is kept private.
            let attributes = try FileManager.default.attributesOfItem(atPath: up.sandbox.path("data/bots/helpdesk/password"))
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
            #expect(try await up.process.stop(SIGTERM) == 0, "\(up.process.errors)")
        }
    }
}
