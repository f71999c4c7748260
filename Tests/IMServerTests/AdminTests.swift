import Foundation
import IMProtocol
import TestSupport
import Testing

@Suite(.sharedServer { $0.admins = ["root"] }) struct AdminTests {
    let server: TestServer
    init() throws { server = try SharedServer.current }

    /// The configured admin's client, registered on first use.
    func root() async throws -> TestClient {
        let answer = try await server.client.send(
            "POST", "/v1/register", json: RegisterRequest(username: "root", password: "correct horse battery"))
        if answer.status == 201 { return server.client.with(token: try answer.decode(AuthResponse.self).token) }
        return try await server.client.login("root")
    }

    @Test func nonAdminsAreRefusedEveryAdminEndpoint() async throws {
        let (alice, _) = try await server.client.newUser("plain")
        expectError(try await alice.get("/v1/admin/users"), .forbidden)
        expectError(
            try await alice.send("POST", "/v1/admin/users", json: AdminCreateUser(username: Names.unique("x"), password: "long enough")),
            .forbidden)
        expectError(
            try await alice.send("PUT", "/v1/admin/users/root/password", json: AdminSetPassword(password: "taken over")),
            .forbidden)
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
        #expect(seen.first { $0.user.username == "root" }?.admin == true)
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

    @Test func closedRegistrationLeavesAccountsToAdmins() async throws {
        try await withServer({ config in
            config.openRegistration = false
            config.admins = ["root"]
        }) { server in
            let stranger = try await server.client.send(
                "POST", "/v1/register", json: RegisterRequest(username: "mallory", password: "long enough"))
            expectError(stranger, .forbidden)
            // The configured administrator may still make their own account: the first one.
            let root = try await server.client.send(
                "POST", "/v1/register", json: RegisterRequest(username: "root", password: "correct horse battery"))
            expectStatus(root, 201)
            let admin = try await server.client.login("root")
            expectStatus(try await admin.get("/v1/admin/users"), 200)
        }
    }
}
