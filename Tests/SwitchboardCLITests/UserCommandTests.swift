import TestSupport
import Testing

@Suite("switchboard user")
struct UserCommandTests {
    static let password = "correct horse battery"

    /// A server with `root` as its configured administrator, registered.
    static func serverWithAdmin() async throws -> TestServer {
        let server = try await TestServer.start { $0.admins = ["root"] }
        _ = try await server.client.register("root", password: password)
        return server
    }

    @Test func anAdministratorAddsListsAndResetsAccounts() async throws {
        let server = try await Self.serverWithAdmin()
        defer { server.removeData() }
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
        await server.stop()
    }

    @Test func aPersonWhoIsNotAnAdministratorIsRefused() async throws {
        let server = try await Self.serverWithAdmin()
        defer { server.removeData() }
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
        await server.stop()
    }

    @Test func aWrongAdministratorPasswordExitsOne() async throws {
        let server = try await Self.serverWithAdmin()
        defer { server.removeData() }
        let sandbox = Sandbox()
        defer { sandbox.remove() }

        let result = await sandbox.run(["user", "list", "--server", server.baseURL, "--user", "root"],
                                       environment: ["SWITCHBOARD_PASSWORD": "guess"])

        #expect(result.status == 1)
        #expect(result.errorLines.first?.hasPrefix("switchboard: wrong password for root") == true)
        await server.stop()
    }

    @Test func aSubcommandWithoutItsNameIsAUsageError() async {
        let result = await Sandbox().run(["user", "add", "--user", "root"])

        #expect(result.status == 2)
        #expect(result.errorLines.first == "switchboard: 'user add' needs one NAME")
    }
}
