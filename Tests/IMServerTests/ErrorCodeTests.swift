import Foundation
import IMProtocol
import Lifecycle
import TestSupport
import Testing

/// Every error code a client can meet, provoked once, in the documented envelope.
@Suite(.sharedServer) struct ErrorCodeTests {
    let server: TestServer
    init() throws { server = try SharedServer.current }

    @Test func invalidRequest() async throws {
        let answer = try await server.client.send("POST", "/v1/register", raw: "{not json")
        expectError(answer, .invalidRequest)
    }

    @Test func unauthorizedWithoutAToken() async throws {
        let answer = try await server.client.get("/v1/me")
        expectError(answer, .unauthorized)
        #expect(answer.header("WWW-Authenticate") == "Bearer")
    }

    @Test(arguments: ["Bearer sbt_not-a-real-token", "Bearer ", "Basic YWxpY2U6cHc=", "sbt_no_scheme"])
    func unauthorizedWithABadToken(_ header: String) async throws {
        let answer = try await server.client.send("GET", "/v1/me", headers: [("Authorization", header)])
        expectError(answer, .unauthorized)
    }

    @Test func unauthorizedAfterLogout() async throws {
        let (alice, _) = try await server.client.newUser("out")
        expectStatus(try await alice.send("POST", "/v1/logout"), 204)
        expectError(try await alice.get("/v1/me"), .unauthorized, reason: "logged_out")
        expectError(try await alice.send("POST", "/v1/logout"), .unauthorized, reason: "logged_out")
    }

    @Test func unauthorizedWhenTheLoginHasExpired() async throws {
        let time = ManualTime()
        try await withServer(time: time, { $0.tokenLifetime = 60 }) { server in
            let (alice, _) = try await server.client.register("alice")
            expectStatus(try await alice.get("/v1/me"), 200)
            time.advance(by: .seconds(61))
            expectError(try await alice.get("/v1/me"), .unauthorized, reason: "expired")
            // Bot logins do not expire.
            let (bot, _) = try await server.createAccount("helper", bot: true)
            expectStatus(try await bot.get("/v1/me"), 200)
        }
    }

    @Test func forbidden() async throws {
        let (alice, _) = try await server.client.newUser("owner")
        let (carol, _) = try await server.client.newUser("outsider")
        let group = Names.unique("public")
        try await alice.create(.group, group, join: .open)
        expectError(try await carol.get("/v1/groups/\(group)/members"), .forbidden, reason: "not_member")
        expectError(try await carol.get("/v1/admin/users"), .forbidden)
    }

    @Test func notFound() async throws {
        let (alice, _) = try await server.client.newUser("seeker")
        expectError(try await alice.get("/v1/users/\(Names.unique("ghost"))"), .notFound)
    }

    @Test func methodNotAllowed() async throws {
        let answer = try await server.client.send("DELETE", "/v1/register")
        expectError(answer, .methodNotAllowed)
        #expect(answer.header("Allow") == "POST")
    }

    @Test func conflict() async throws {
        let (_, user) = try await server.client.newUser("twice")
        let answer = try await server.client.send(
            "POST", "/v1/register", json: RegisterRequest(username: user.username, password: "whatever you like"))
        expectError(answer, .conflict)
    }

    @Test func cursorExpired() async throws {
        let (alice, _) = try await server.client.newUser("a")
        let (bob, _) = try await server.client.newUser("b")
        expectError(try await bob.poll(try await alice.cursor()), .cursorExpired)
    }

    @Test func payloadTooLarge() async throws {
        let (alice, _) = try await server.client.newUser("big")
        let answer = try await alice.send("PATCH", "/v1/me", body: Data(repeating: 0x20, count: 3 << 20))
        expectError(answer, .payloadTooLarge)
    }

    @Test func unsupportedMediaType() async throws {
        let (alice, _) = try await server.client.newUser("pic")
        let answer = try await alice.send("PUT", "/v1/me/avatar", body: Data("%PDF-1.7".utf8))
        expectError(answer, .unsupportedMediaType)
    }

    @Test func rateLimited() async throws {
        try await withServer({ config in
            config.rateLimits.enabled = true
            config.rateLimits.general = .init(rate: 0.001, burst: 1)
        }) { server in
            let (alice, _) = try await server.client.register("alice")
            expectStatus(try await alice.get("/v1/me"), 200)
            let answer = try await alice.get("/v1/me")
            expectError(answer, .rateLimited)
            let retryAfter = try #require(answer.error?.retryAfter)
            #expect(retryAfter >= 1)
            #expect(answer.header("Retry-After") == String(retryAfter))
        }
    }
}
