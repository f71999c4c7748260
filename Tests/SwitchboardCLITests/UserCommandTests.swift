import IMProtocol
import Lifecycle
import TestSupport
import Testing

@Suite("switchboard user")
struct UserCommandTests {
    static let password = "correct horse battery"

    /// Runs `body` with a server whose administrator is `root` (made on the data folder).
    static func withAdministeredServer(_ body: (TestServer) async throws -> Void) async throws {
        try await withServer { server in
            let sandbox = Sandbox()
            defer { sandbox.remove() }
            let made = await sandbox.run(
                ["user", "add", "root", "--admin", "--data", server.directory],
                environment: ["SWITCHBOARD_NEW_PASSWORD": password])
            guard made.status == 0 else { throw TestFailure("user add --admin: \(made.errors)") }
            try await body(server)
        }
    }

    @Test func anAdministratorAddsListsAndResetsAccounts() async throws {
        try await Self.withAdministeredServer { server in
        let admin = Sandbox()
        defer { admin.remove() }
        let asRoot = ["--server", server.baseURL, "--user", "root"]

        let added = await admin.run(["user", "add", "carol", "--nickname", "Carol C"] + asRoot,
                                    environment: ["SWITCHBOARD_PASSWORD": Self.password,
                                                  "SWITCHBOARD_NEW_PASSWORD": "carol's first password"])
        let listed = await admin.run(["user", "list"] + asRoot)
        let reset = await admin.run(["user", "passwd", "carol"] + asRoot,
                                    environment: ["SWITCHBOARD_NEW_PASSWORD": "carol's second password"])

        #expect(added.status == 0, "\(added.errors)")
        #expect(added.outputLines == ["created carol"])
        #expect(listed.status == 0, "\(listed.errors)")
        #expect(listed.outputLines.contains("carol\tCarol C"))
        #expect(listed.outputLines.contains { $0.hasPrefix("root\t") && $0.hasSuffix("[admin]") })
        #expect(reset.status == 0, "\(reset.errors)")
        #expect(reset.outputLines == ["password of carol changed; its other logins have ended"])

        // Carol logs in with the new password only.
        let carol = Sandbox()
        defer { carol.remove() }
        let old = await carol.run(["send", "--server", server.baseURL, "--user", "carol", "--to", "user:root", "hi"],
                                  environment: ["SWITCHBOARD_PASSWORD": "carol's first password"])
        let new = await carol.run(["send", "--server", server.baseURL, "--user", "carol", "--to", "user:root", "hi"],
                                  environment: ["SWITCHBOARD_PASSWORD": "carol's second password"])
        #expect(old.status == 1)
        #expect(old.errorLines.first?.hasPrefix("switchboard: wrong password for carol") == true)
        #expect(new.status == 0, "\(new.errors)")
        }
    }

    @Test func aPersonWhoIsNotAnAdministratorIsRefused() async throws {
        try await Self.withAdministeredServer { server in
        _ = try await server.client.register("alice", password: Self.password)
        let sandbox = Sandbox()
        defer { sandbox.remove() }

        let result = await sandbox.run(["user", "add", "mallory", "--server", server.baseURL, "--user", "alice"],
                                       environment: ["SWITCHBOARD_PASSWORD": Self.password,
                                                     "SWITCHBOARD_NEW_PASSWORD": "mallory's password"])

        #expect(result.status == 1)
        #expect(result.output.isEmpty)
        #expect(result.errorLines.count == 1)
        let admin = Sandbox()
        defer { admin.remove() }
        let listed = await admin.run(["user", "list", "--server", server.baseURL, "--user", "root"],
                                     environment: ["SWITCHBOARD_PASSWORD": Self.password])
        #expect(!listed.output.contains("mallory"))
        #expect(listed.output.contains("alice"))
        }
    }

    @Test func aWrongAdministratorPasswordExitsOne() async throws {
        try await Self.withAdministeredServer { server in
        let sandbox = Sandbox()
        defer { sandbox.remove() }

        let result = await sandbox.run(["user", "list", "--server", server.baseURL, "--user", "root"],
                                       environment: ["SWITCHBOARD_PASSWORD": "guess"])

        #expect(result.status == 1)
        #expect(result.errorLines.first?.hasPrefix("switchboard: wrong password for root") == true)
        }
    }

    /// Issue 8, items 1 and 12: the first administrator and bot accounts are made on the
    /// data folder, with no login, while the server runs.
    @Test func accountsMadeOnTheDataFolderWorkAtOnce() async throws {
        try await withServer { server in
            let sandbox = Sandbox()
            defer { sandbox.remove() }
            let admin = await sandbox.run(["user", "add", "boss", "--admin", "--data", server.directory],
                                          environment: ["SWITCHBOARD_NEW_PASSWORD": Self.password])
            let bot = await sandbox.run(["user", "add", "helper", "--bot", "--nickname", "Helper", "--data", server.directory],
                                        environment: ["SWITCHBOARD_NEW_PASSWORD": "the bot's password"])
            let taken = await sandbox.run(["user", "add", "boss", "--data", server.directory],
                                          environment: ["SWITCHBOARD_NEW_PASSWORD": Self.password])
            let listed = await sandbox.run(["user", "list", "--data", server.directory])
            #expect(admin.status == 0, "\(admin.errors)")
            #expect(admin.outputLines == ["created boss (admin)"])
            #expect(bot.outputLines.first == "created helper (bot)")
            // A bot is shown its Telegram Bot API token, which the running server takes at once.
            let token = try #require(bot.outputLines.last?.split(separator: " ").last.map(String.init))
            #expect(bot.outputLines.count == 2 && bot.outputLines[1].hasPrefix("telegram token: ") && token.contains(":"))
            let getMe = try await server.client.get("/bot\(token)/getMe")
            #expect(getMe.status == 200 && getMe.text.contains(#""username":"helper""#), "\(getMe.text)")
            // Another token ends the first; --revoke ends it.
            let again = await sandbox.run(["user", "telegram-token", "helper", "--data", server.directory])
            let second = try #require(again.outputLines.first?.split(separator: " ").last.map(String.init))
            #expect(again.status == 0 && again.outputLines.first?.hasPrefix("telegram token of helper: ") == true)
            #expect(try await server.client.get("/bot\(second)/getMe").status == 200)
            let revoked = await sandbox.run(["user", "telegram-token", "helper", "--revoke", "--data", server.directory])
            #expect(revoked.outputLines == ["the telegram token of helper has ended"], "\(revoked.errors)")
            #expect(taken.status == 1)
            #expect(taken.errorLines.first?.contains("the username 'boss' is taken") == true)
            #expect(listed.outputLines.contains { $0.hasPrefix("boss\t") && $0.hasSuffix("[admin]") })
            #expect(listed.outputLines.contains("helper\tHelper  [bot]"))

            let boss = try await server.client.login("boss", password: Self.password)
            #expect(try await boss.get("/v1/admin/users").status == 200)
        }
    }

    /// Issue 8, item 8: suspension and deletion from the command line.
    @Test func anAdministratorSuspendsAndDeletesAccounts() async throws {
        try await Self.withAdministeredServer { server in
            _ = try await server.client.register("mallory", password: Self.password)
            let admin = Sandbox()
            defer { admin.remove() }
            let asRoot = ["--server", server.baseURL, "--user", "root"]
            let environment = ["SWITCHBOARD_PASSWORD": Self.password]
            let suspended = await admin.run(["user", "suspend", "mallory"] + asRoot, environment: environment)
            let listed = await admin.run(["user", "list"] + asRoot, environment: environment)
            let deleted = await admin.run(["user", "delete", "mallory"] + asRoot, environment: environment)
            let again = await admin.run(["user", "list"] + asRoot, environment: environment)
            #expect(suspended.outputLines == ["suspended mallory; its logins have ended"], "\(suspended.errors)")
            #expect(listed.outputLines.contains("mallory\tmallory  [suspended]"))
            #expect(deleted.outputLines == ["deleted mallory"], "\(deleted.errors)")
            #expect(!again.output.contains("mallory"))
        }
    }

    /// Issue 26 §5: a runner's administration credential that does not expire: a login of
    /// an administrator's bot account, made on the data folder, which still creates bot
    /// accounts a year later and ends with the account's other logins.
    @Test func aRunnerCredentialIsALoginOfAnAdministratorsBotThatNeverExpires() async throws {
        let time = ManualTime(wallMilliseconds: SystemTime().wallMilliseconds)
        try await withServer(time: time) { server in
            let sandbox = Sandbox()
            defer { sandbox.remove() }
            let secret = ["SWITCHBOARD_NEW_PASSWORD": Self.password]
            _ = await sandbox.run(["user", "add", "person", "--data", server.directory], environment: secret)
            let refused = await sandbox.run(["user", "runner-token", "person", "--data", server.directory])
            #expect(refused.status == 1)
            #expect(refused.errors.contains("'person' is not an administrator's bot account"), "\(refused.errors)")
            #expect(await sandbox.run(["user", "runner-token", "runner"]).status == 2, "needs --data or --store")

            let made = await sandbox.run(["user", "add", "runner", "--bot", "--admin", "--data", server.directory],
                                         environment: secret)
            // Every bot account is made with its Telegram Bot API token (docs/telegram.md).
            #expect(made.outputLines.first == "created runner (bot) (admin)", "\(made.errors)")
            #expect(made.outputLines.dropFirst().allSatisfy { $0.hasPrefix("telegram token: ") }, "\(made.outputLines)")
            let issued = await sandbox.run(["user", "runner-token", "runner", "--data", server.directory])
            #expect(issued.status == 0, "\(issued.errors)")
            let token = try #require(issued.outputLines.first)
            #expect(token.hasPrefix("sbr_"))

            // A year on the server's clock: a person's login would have expired long ago.
            time.advance(by: .seconds(365 * 86_400))
            let runner = server.client.with(token: token)
            let created = try await runner.send("POST", "/v1/admin/users",
                                                json: AdminCreateUser(username: "helper", password: Self.password, bot: true))
            #expect(created.status == 201, "\(created.text)")

            // Ended like every login of the account: a new password set through the running
            // server (`passwd --data` is refused while a server has the folder open).
            let changed = try await runner.send("PUT", "/v1/admin/users/runner/password",
                                                json: AdminSetPassword(password: "a new password for the runner"))
            #expect(changed.status == 204 || changed.status == 200, "\(changed.text)")
            #expect(try await runner.get("/v1/admin/users").status == 401)
        }
    }

    @Test func suspendingOnTheDataFolderIsAUsageError() async {
        let result = await Sandbox().run(["user", "suspend", "mallory", "--data", "/tmp/nowhere"])
        #expect(result.status == 2)
        #expect(result.errorLines.first?.contains("go through the running server") == true)
    }

    @Test func aSubcommandWithoutItsNameIsAUsageError() async {
        let result = await Sandbox().run(["user", "add", "--user", "root"])

        #expect(result.status == 2)
        #expect(result.errorLines.first == "switchboard: 'user add' needs one NAME")
    }
}
