#if canImport(Glibc)
import Glibc
#endif
import Foundation
import IMBots
import IMProtocol
import TestSupport
import Testing

extension ServerSuites {
    /// How bots get their accounts and passwords: only with the runner's administration
    /// credential, with a generated password when none is configured, and with a message
    /// that says what to do when neither works.
    @Suite(.timeLimit(.minutes(3))) struct RunnerAccountTests {
        static func bot(password: String, register: Bool) -> String {
            RunnerFixture.echoBot().replacingOccurrences(
                of: "account: { username: echo, password: echo-password, register: true }",
                with: "account: { username: echo, password: \"\(password)\", register: \(register) }")
        }

        @Test func aBotWithoutAPasswordGetsAGeneratedOneKeptPrivateAndUsedAgain() async throws {
            try await withBotsFolder { server, fixture, adminToken in
                try fixture.write(Self.bot(password: "${ECHO_PASSWORD:-}", register: true))
                let configuration = fixture.configuration(server: server, adminToken: adminToken)
                let (alice, _) = try await server.client.register("alice")
                try await withRunningRunner(configuration) { running in
                    try await running.logs.line(containing: "bot echo is running as echo")
                    #expect(running.logs.contains("no password configured; generated one"))
                }
                let path = fixture.state + "/echo/password"
                let password = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .newlines)
                #expect(password.count >= 32)
                #expect(try Self.mode(of: path) == 0o600)
                // The account is a bot account, made by the administrator, with that password.
                let login = try await server.client.send(
                    "POST", "/v1/login", json: LoginRequest(username: "echo", password: password))
                #expect(login.status == 200)
                #expect(try login.decode(AuthResponse.self).user.isBot)
                // The next start logs in with the kept password (the login above ended nothing:
                // it used no device name).
                try await withRunningRunner(configuration) { running in
                    try await running.logs.line(containing: "bot echo is running as echo")
                    try await server.awaitParkedPolls(1)
                    let start = try await alice.cursorNow()
                    try await alice.say("again", to: "echo")
                    #expect(try await alice.messages(from: "echo", count: 1, after: start) == ["echo: again"])
                }
            }
        }

        @Test func aBotWithoutAPasswordThatMayNotCreateItsAccountIsRefusedNamingTheVariable() async throws {
            try await withBotsFolder { server, fixture, adminToken in
                try fixture.write(Self.bot(password: "${ECHO_PASSWORD:-}", register: false))
                let runner = try BotRunner(configuration: fixture.configuration(server: server, adminToken: adminToken))
                let error = await #expect(throws: RunnerError.self) { try await runner.run() }
                #expect(error?.description.contains("bot 'echo' has no password") == true)
                #expect(error?.description.contains("set ECHO_PASSWORD to the account's password") == true)
            }
        }

        @Test func withoutAnAdministrationCredentialANewBotSaysWhatToRun() async throws {
            try await withBotsFolder { server, fixture, _ in
                try fixture.write(RunnerFixture.echoBot())
                try await withRunningRunner(fixture.configuration(server: server, adminToken: nil)) { running in
                    try await running.logs.line(containing: "bot echo cannot log in as echo")
                    #expect(running.logs.contains("Create it with `switchboard user add echo --bot` on the server"))
                    #expect(running.logs.contains("or set runner.admin_token"))
                }
                // Nothing was created: registering bot accounts is for administrators.
                let (viewer, _) = try await server.client.register("viewer")
                #expect(try await viewer.get("/v1/users/echo").status == 404)
            }
        }

        @Test func anExistingBotAccountJustLogsInWithoutACredential() async throws {
            try await withBotsFolder { server, fixture, adminToken in
                var admin = server.client
                admin.token = adminToken
                let created = try await admin.send(
                    "POST", "/v1/admin/users",
                    json: AdminCreateUser(username: "echo", password: "echo-password", bot: true))
                #expect(created.status == 201)
                try fixture.write(RunnerFixture.echoBot())
                try await withRunningRunner(fixture.configuration(server: server, adminToken: nil)) { running in
                    try await running.logs.line(containing: "bot echo is running as echo")
                }
            }
        }

        @Test func aCredentialThatIsNotAnAdministratorsIsReportedAsSuch() async throws {
            try await withBotsFolder { server, fixture, _ in
                let (mallory, _) = try await server.client.register("mallory")
                try fixture.write(RunnerFixture.echoBot())
                try await withRunningRunner(fixture.configuration(server: server, adminToken: mallory.token)) { running in
                    try await running.logs.line(containing: "the runner's administration credential (runner.admin_token) was refused")
                }
                #expect(try await mallory.get("/v1/users/echo").status == 404)
            }
        }

        @Test func theStateFolderIsPrivate() async throws {
            try await withRunner { _, fixture, running, alice in
                let start = try await alice.cursorNow()
                try await alice.say("hello", to: "echo")
                _ = try await alice.messages(from: "echo", count: 1, after: start)
                await running.stop()
                #expect(try Self.mode(of: fixture.state) == 0o700)
                #expect(try Self.mode(of: fixture.state + "/echo") == 0o700)
                for file in ["/echo/journal.jsonl", "/echo/lock", "/audit.log"] {
                    #expect(try Self.mode(of: fixture.state + file) == 0o600, "\(file)")
                }
            }
        }

        static func mode(of path: String) throws -> mode_t {
            var info = stat()
            guard stat(path, &info) == 0 else { throw TestFailure("cannot stat \(path)") }
            return info.st_mode & 0o777
        }
    }
}
