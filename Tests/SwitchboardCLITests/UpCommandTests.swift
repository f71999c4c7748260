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
            try await up.botRunning("helpdesk")
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

    /// Log rotation of the audit log: after `audit.log` is renamed, SIGHUP (logrotate's
    /// postrotate, systemd's reload) makes the runner open a new one at the path, and the
    /// next action's line lands there; the renamed file keeps only the earlier lines.
    @Test(.timeLimit(.minutes(3)))
    func sighupMovesTheAuditLogToANewFileAfterARename() async throws {
        try await ShippedUp.run { up in
            let (alice, _) = try await TestClient(baseURL: up.baseURL).register("alice")
            try await up.botRunning("helpdesk")
            let audit = up.sandbox.path("data/bots/audit.log")
            func lines(_ path: String) -> [Substring] {
                ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n")
            }
            func ask() async throws {
                let sent = try await alice.send(
                    "POST", "/v1/conversations/user:helpdesk/messages", json: SendMessageRequest(text: "/help"))
                #expect(sent.status == 201)
            }
            try await ask()
            // The help rule's last line for the event says its stop ended the evaluation: only
            // then is everything of the first action written (the reply's line comes first).
            func evaluated(_ path: String) -> Bool {
                lines(path).contains { $0.contains(#""bot":"helpdesk""#) && $0.contains(#""outcome":"stopped""#) }
            }
            try await eventually("the first action's audit lines") { evaluated(audit) }
            let first = lines(audit)
            try FileManager.default.moveItem(atPath: audit, toPath: audit + ".1")

            up.process.signal(SIGHUP)
            try await eventually("the audit log reopened") { up.process.errors.contains("reopened the audit log \(audit)") }
            try await ask()
            try await eventually("the second action's audit lines, in the new file") { evaluated(audit) }
            #expect(lines(audit + ".1") == first)
            #expect(lines(audit).allSatisfy { !first.contains($0) })
            #expect(up.process.errors.contains("SIGHUP: reopening the audit log and reloading the bots"))
            #expect(try await up.process.stop(SIGTERM) == 0, "\(up.process.errors)")
        }
    }

    /// A broken bot file next to a good one: the good bot runs, the runner's /healthz says
    /// "degraded" and names the broken file, and the stop exits 2 saying why; with
    /// --strict the start fails at once.
    @Test(.timeLimit(.minutes(3)))
    func aBrokenBotFileLeavesTheOthersRunningAndTheExitStatusSaysSo() async throws {
        let binary = try #require(switchboardExecutable, "build the switchboard executable first (swift build)")
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        try sandbox.write("bots/greeter.yaml", BotTexts.greeter.replacingOccurrences(
            of: "password: \"${GREETER_PASSWORD:-not-a-secret}\"", with: "register: true"))
        let broken = try sandbox.write("bots/broken.yaml", BotTexts.broken)
        let config = try sandbox.write("config.yaml", """
            log_level: info
            server: { listen: 127.0.0.1:0, data: \(sandbox.path("data")), durability: normal }
            runner: { listen: 127.0.0.1:0, bots: \(sandbox.path("bots")), state: \(sandbox.path("data/bots")) }

            """)
        let environment = ["PATH": "/usr/bin:/bin", "HOME": sandbox.path("home")]
        let up = try SpawnedProcess(binary, ["up", "--config", config], environment: environment)
        try await ensuring({
            var runnerURL = ""
            try await eventually("the runner listening") {
                guard let url = ShippedUp.url(after: "runner listening on http://127.0.0.1:", in: up.errors) else {
                    return up.exitStatus != nil
                }
                runnerURL = url
                return true
            }
            try await eventually("the greeter polls") { up.errors.contains("bot greeter is running as greeter") }
            let health = try await TestClient(baseURL: runnerURL).get("/healthz")
            #expect(health.status == 200)
            #expect(health.text.hasPrefix(#"{"bots":["greeter"],"problems":[{"bot":"broken","errors":["\#(broken):2:40: "#),
                    "\(health.text)")
            #expect(health.text.hasSuffix(#""state":"not_running"}],"status":"degraded"}"#), "\(health.text)")
            #expect(try await up.stop(SIGTERM) == 2, "\(up.errors)")
            // Read to the end: the last lines may still be in the pipe when the exit is seen.
            let errors = try await up.allErrors()
            #expect(errors.contains("switchboard: \(broken): bot broken did not run: \(broken):2:40: environment variable"), "\(errors)")
        }) {
            if up.exitStatus == nil { _ = try? await up.stop(SIGKILL) }
        }

        let strict = try SpawnedProcess(binary, ["up", "--config", config, "--strict"], environment: environment)
        try await ensuring({
            let status = try await withHangGuard("up --strict ending") { await strict.waitForExit() }
            #expect(status == 2)
            #expect(strict.errors.contains("\(broken):7:9: unknown key 'repyl' (did you mean 'reply'?)"))
        }) {
            if strict.exitStatus == nil { _ = try? await strict.stop(SIGKILL) }
        }
    }
}
