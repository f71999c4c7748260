import Foundation
import IMProtocol
import IMServer
import TestSupport
import Testing

@Suite(.sharedServer) struct AdminTests {
    let server: TestServer
    init() throws { server = try SharedServer.current }

    /// An administrator's client (made with the server's local credential, as
    /// `switchboard user add --admin` would on the data folder).
    func root() async throws -> TestClient {
        let name = Names.unique("root")
        return try await server.createAccount(name, admin: true).client
    }

    @Test func nonAdminsAreRefusedEveryAdminEndpoint() async throws {
        let (alice, _) = try await server.client.newUser("plain")
        let (_, bob) = try await server.client.newUser("victim")
        expectError(try await alice.get("/v1/admin/users"), .forbidden)
        expectError(
            try await alice.send("POST", "/v1/admin/users", json: AdminCreateUser(username: Names.unique("x"), password: "long enough")),
            .forbidden)
        expectError(
            try await alice.send("PUT", "/v1/admin/users/\(bob.username)/password", json: AdminSetPassword(password: "taken over")),
            .forbidden)
        expectError(try await alice.send("POST", "/v1/admin/users/\(bob.username)/suspend"), .forbidden)
        expectError(try await alice.send("DELETE", "/v1/admin/users/\(bob.username)"), .forbidden)
        expectError(try await server.client.get("/v1/admin/users"), .unauthorized)
    }

    @Test func anAdminCreatesAccountsThatCanLogIn() async throws {
        let admin = try await root()
        let name = Names.unique("made")
        let answer = try await admin.send(
            "POST", "/v1/admin/users", json: AdminCreateUser(username: name, password: "given password", nickname: "Made", bot: true))
        expectStatus(answer, 201)
        let created = try answer.decode(AdminUser.self)
        #expect(created.user.username == name)
        #expect(created.user.isBot)
        #expect(created.admin == false)
        _ = try await server.client.login(name, password: "given password")
        let again = try await admin.send("POST", "/v1/admin/users", json: AdminCreateUser(username: name, password: "given password"))
        expectError(again, .conflict)
        let bad = try await admin.send("POST", "/v1/admin/users", json: AdminCreateUser(username: "no way", password: "given password"))
        expectError(bad, .invalidRequest, field: "username")
    }

    @Test func anAdminListsAccountsPageByPage() async throws {
        let admin = try await root()
        let prefix = Names.unique("page")
        for index in 0..<3 {
            expectStatus(
                try await admin.send("POST", "/v1/admin/users", json: AdminCreateUser(username: "\(prefix)\(index)", password: "long enough")),
                201)
        }
        // Page through everyone, two at a time, and find the three in order.
        var after: String?
        var seen: [AdminUser] = []
        repeat {
            let query = after.map { "&after=\($0)" } ?? ""
            let page = try await admin.get("/v1/admin/users?limit=2\(query)").decode(AdminUserList.self)
            #expect(page.users.count <= 2)
            seen += page.users
            after = page.next
        } while after != nil
        let names = seen.map(\.user.username)
        #expect(names == names.sorted())
        #expect(names.filter { $0.hasPrefix(prefix) } == ["\(prefix)0", "\(prefix)1", "\(prefix)2"])
        expectError(try await admin.get("/v1/admin/users?limit=0"), .invalidRequest, field: "limit")
    }

    @Test func anAdminPasswordResetEndsTheUsersLogins() async throws {
        let admin = try await root()
        let (alice, user) = try await server.client.newUser("reset")
        let answer = try await admin.send(
            "PUT", "/v1/admin/users/\(user.username)/password", json: AdminSetPassword(password: "set by admin"))
        expectStatus(answer, 204)
        expectError(try await alice.get("/v1/me"), .unauthorized, reason: "password_changed")
        _ = try await server.client.login(user.username, password: "set by admin")
        expectError(
            try await admin.send("PUT", "/v1/admin/users/\(Names.unique("ghost"))/password", json: AdminSetPassword(password: "whatever it is")),
            .notFound)
    }

    /// Issue 8, item 12: public registration can never make a bot account.
    @Test func registeringABotIsRefusedWithWhatToRunInstead() async throws {
        let name = Names.unique("sneaky")
        let answer = try await server.client.send(
            "POST", "/v1/register", json: RegisterRequest(username: name, password: "long enough pw", bot: true))
        expectError(answer, .forbidden, reason: "bot_needs_administrator")
        #expect(answer.error?.message.contains("switchboard user add --bot \(name)") == true)
        // Nothing was made.
        let (alice, _) = try await server.client.newUser("looker")
        expectError(try await alice.get("/v1/users/\(name)"), .notFound)
    }

    /// Issue 8, item 12: the embedding program's credential works for /v1/admin only.
    @Test func theLocalAdministratorCredentialOpensOnlyTheAdminEndpoints() async throws {
        let local = try await server.localAdministrator()
        expectStatus(try await local.get("/v1/admin/users"), 200)
        expectError(try await local.get("/v1/me"), .forbidden)
        expectError(try await local.get("/v1/conversations"), .forbidden)
        let bot = Names.unique("bot")
        let made = try await local.send(
            "POST", "/v1/admin/users", json: AdminCreateUser(username: bot, password: "long enough pw", bot: true))
        expectStatus(made, 201)
        #expect(try made.decode(AdminUser.self).user.isBot)
    }

    /// Issue 8, item 8: suspending ends every login at once (a parked poll too) and
    /// refuses new ones; lifting it lets the account in again.
    @Test func aSuspendedAccountLosesItsLoginsAndCannotLogIn() async throws {
        let admin = try await root()
        let (alice, user) = try await server.client.newUser("suspect")
        let cursor = try await alice.cursor()
        async let parked = alice.poll(cursor, timeout: 50)
        try await eventually("alice's poll parks") { server.parkedPolls > 0 }
        let suspended = try await admin.send("POST", "/v1/admin/users/\(user.username)/suspend")
        expectStatus(suspended, 200)
        #expect(try suspended.decode(AdminUser.self).suspended == true)
        expectError(try await parked, .unauthorized, reason: "suspended")
        expectError(try await alice.get("/v1/me"), .unauthorized, reason: "suspended")
        let login = try await server.client.send(
            "POST", "/v1/login", json: LoginRequest(username: user.username, password: "correct horse battery"))
        expectError(login, .unauthorized, reason: "suspended")
        let list = try await admin.get("/v1/admin/users?limit=500").decode(AdminUserList.self)
        #expect(list.users.first { $0.user.username == user.username }?.suspended == true)

        expectStatus(try await admin.send("POST", "/v1/admin/users/\(user.username)/unsuspend"), 200)
        _ = try await server.client.login(user.username)
    }

    /// Issue 8, item 8: a deleted account's logins, memberships and name go; its
    /// messages stay, from a placeholder nobody can register.
    @Test func aDeletedAccountIsGoneButItsMessagesStay() async throws {
        let admin = try await root()
        let (alice, aliceUser) = try await server.client.newUser("leaver")
        let (bob, bobUser) = try await server.client.newUser("stayer")
        let group = Names.unique("crew")
        try await bob.create(.group, group, join: .open)
        try await alice.join(.group, group)
        try await alice.message("group:\(group)", "I was here")
        try await alice.message("user:\(bobUser.username)", "bye bob")

        expectStatus(try await admin.send("DELETE", "/v1/admin/users/\(aliceUser.username)"), 204)
        expectError(try await alice.get("/v1/me"), .unauthorized)
        expectError(try await bob.get("/v1/users/\(aliceUser.username)"), .notFound)
        let members = try await bob.get("/v1/groups/\(group)/members").decode(MemberList.self).members
        #expect(members.map(\.user.username) == [bobUser.username])
        let history = try await bob.history("group:\(group)").messages
        #expect(history.contains { $0.text == "I was here" && $0.senderID == aliceUser.id })
        #expect(history.first { $0.text == "I was here" }?.sender.hasPrefix("deleted~") == true)
        // The name is free again, for a new account that is not the old one.
        let (_, reborn) = try await server.client.register(aliceUser.username)
        #expect(reborn.id != aliceUser.id)
        expectError(try await admin.send("DELETE", "/v1/admin/users/\(Names.unique("ghost"))"), .notFound)
    }

    @Test func anAdministratorCannotSuspendOrDeleteThemselves() async throws {
        let name = Names.unique("self")
        let (admin, _) = try await server.createAccount(name, admin: true)
        expectError(try await admin.send("POST", "/v1/admin/users/\(name)/suspend"), .conflict)
        expectError(try await admin.send("DELETE", "/v1/admin/users/\(name)"), .conflict)
    }
}

/// Issue 8, item 1: administration cannot be claimed over HTTP.
@Suite struct AdministrationClaimTests {
    @Test func aNameOnceListedAsAdminRegistersAsAPlainAccount() async throws {
        try await withServer { server in
            let (root, user) = try await server.client.register("root")
            expectError(try await root.get("/v1/admin/users"), .forbidden)
            // The admins list no longer exists: a configuration that names one says what to run.
            var file = ServerFileConfig()
            file.admins = ["root"]
            let error = #expect(throws: ServerFileConfig.Invalid.self) { try file.configuration() }
            #expect(error?.key == "admins")
            #expect(error?.description.contains("switchboard user add NAME --admin --data") == true)
            _ = user
        }
    }

    @Test func anExistingAccountIsNotPromotedByARestart() async throws {
        try await withRestartableServer { handle in
            let (_, _) = try await handle.server.client.register("boss")
            let server = try await handle.restart()
            let again = try await server.client.login("boss")
            expectError(try await again.get("/v1/admin/users"), .forbidden)
        }
    }

    @Test func closedRegistrationLeavesAccountsToAdmins() async throws {
        try await withServer({ config in config.openRegistration = false }) { server in
            let stranger = try await server.client.send(
                "POST", "/v1/register", json: RegisterRequest(username: "root", password: "long enough"))
            expectError(stranger, .forbidden)
            // The first administrator is made on the data folder, not over HTTP.
            let local = try await AccountAdministration(dataDirectory: server.directory, passwordHasher: TestServer.configuration(directory: "").passwordHasher)
            let made = try await local.addAccount(AdminCreateUser(username: "root", password: "correct horse battery", admin: true))
            await local.close()
            #expect(made.admin)
            let admin = try await server.client.login("root")
            expectStatus(try await admin.get("/v1/admin/users"), 200)
        }
    }
}
