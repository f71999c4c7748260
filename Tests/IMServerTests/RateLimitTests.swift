import Foundation
import IMProtocol
import IMServer
import TestSupport
import Testing

/// Request budgets and login throttling, each on a server of its own with tiny limits.
/// The budgets refill so slowly (one per 1000 s) that no test can see one refill.
@Suite struct RateLimitTests {
    static let slow = 0.001

    @Test func sendingPastTheBudgetIs429WithRetryAfterAndOthersAreUnaffected() async throws {
        try await withServer({ config in
            config.rateLimits.enabled = true
            config.rateLimits.send = .init(rate: Self.slow, burst: 2)
        }) { server in
            let (alice, _) = try await server.client.register("alice")
            let (bob, _) = try await server.client.register("bob")
            try await alice.message("user:bob", "one")
            try await alice.message("user:bob", "two")
            let third = try await alice.send(
                "POST", "/v1/conversations/user:bob/messages", json: SendMessageRequest(text: "three"))
            expectError(third, .rateLimited)
            let retryAfter = try #require(third.error?.retryAfter)
            #expect(retryAfter >= 1)
            #expect(third.header("Retry-After") == String(retryAfter))
            #expect(try await bob.history("user:alice").messages.map(\.text) == ["two", "one"])

            // Another account has its own budget; reading is a different budget.
            try await bob.message("user:alice", "bob's own")
            expectStatus(try await alice.get("/v1/conversations"), 200)
            #expect(try await server.metric("switchboard_rate_limited_total") == 1)
        }
    }

    @Test func botsHaveTheirOwnSendBudget() async throws {
        try await withServer({ config in
            config.rateLimits.enabled = true
            config.rateLimits.send = .init(rate: Self.slow, burst: 1)
            config.rateLimits.botSend = .init(rate: Self.slow, burst: 3)
        }) { server in
            let (bot, _) = try await server.createAccount("helper", bot: true)
            _ = try await server.client.register("alice")
            for index in 1...3 { try await bot.message("user:alice", "m\(index)") }
            let fourth = try await bot.send(
                "POST", "/v1/conversations/user:alice/messages", json: SendMessageRequest(text: "m4"))
            expectError(fourth, .rateLimited)
        }
    }

    @Test func everyOtherRequestSpendsTheGeneralBudget() async throws {
        try await withServer({ config in
            config.rateLimits.enabled = true
            config.rateLimits.general = .init(rate: Self.slow, burst: 3)
        }) { server in
            let (alice, _) = try await server.client.register("alice")
            for _ in 0..<3 { expectStatus(try await alice.get("/v1/me"), 200) }
            expectError(try await alice.get("/v1/contacts"), .rateLimited)
            // Open endpoints spend nothing.
            expectStatus(try await server.client.get("/healthz"), 200)
        }
    }

    @Test func registrationsFromOneAddressAreLimited() async throws {
        try await withServer({ config in
            config.rateLimits.enabled = true
            config.rateLimits.register = .init(rate: Self.slow, burst: 2)
        }) { server in
            let (one, _) = try await server.client.register("one")
            _ = try await server.client.register("two")
            let third = try await server.client.send(
                "POST", "/v1/register", json: RegisterRequest(username: "three", password: "long enough"))
            expectError(third, .rateLimited)
            #expect(third.header("Retry-After") != nil)
            expectError(try await one.get("/v1/users/three"), .notFound)
        }
    }

    @Test func repeatedWrongPasswordsLockTheAccountEvenForTheRightOne() async throws {
        try await withServer { server in
            let limits = server.app.configuration.loginLimits
            _ = try await server.client.register("alice")
            let (bob, _) = try await server.client.register("bob")
            for _ in 0..<limits.failuresPerUser {
                let wrong = try await server.client.send(
                    "POST", "/v1/login", json: LoginRequest(username: "alice", password: "wrong guess"))
                expectError(wrong, .unauthorized, reason: "bad_credentials")
            }
            let right = try await server.client.send(
                "POST", "/v1/login", json: LoginRequest(username: "alice", password: "correct horse battery"))
            expectError(right, .rateLimited)
            let retryAfter = try #require(right.error?.retryAfter)
            #expect(retryAfter >= 1)
            #expect(right.header("Retry-After") == String(retryAfter))
            #expect(try await server.metric("switchboard_login_failures_total") == limits.failuresPerUser)

            // The lock is per account: bob logs in from the same address.
            expectStatus(
                try await bob.send("POST", "/v1/login", json: LoginRequest(username: "bob", password: "correct horse battery")),
                200)
        }
    }

    @Test func guessingTheOldPasswordOfAPasswordChangeIsThrottledLikeALogin() async throws {
        try await withServer { server in
            let limits = server.app.configuration.loginLimits
            let (alice, _) = try await server.client.register("alice")
            for _ in 0..<limits.failuresPerUser {
                let wrong = try await alice.send(
                    "PUT", "/v1/me/password", json: PasswordChange(oldPassword: "a wrong guess", newPassword: "taken over now"))
                expectError(wrong, .forbidden, field: "old_password")
            }
            let right = try await alice.send(
                "PUT", "/v1/me/password", json: PasswordChange(oldPassword: "correct horse battery", newPassword: "taken over now"))
            expectError(right, .rateLimited)
            #expect(right.header("Retry-After") != nil)
            // The password did not change and the login goes on.
            expectStatus(try await alice.get("/v1/me"), 200)
        }
    }

    @Test func oneAddressFailingForManyAccountsIsRefused() async throws {
        try await withServer({ config in
            config.loginLimits = LoginLimits(failuresPerUser: 100, failuresPerAddress: 3)
        }) { server in
            _ = try await server.client.register("alice")
            for name in ["x1", "x2", "x3"] {
                let wrong = try await server.client.send(
                    "POST", "/v1/login", json: LoginRequest(username: name, password: "wrong guess"))
                expectError(wrong, .unauthorized)
            }
            let right = try await server.client.send(
                "POST", "/v1/login", json: LoginRequest(username: "alice", password: "correct horse battery"))
            expectError(right, .rateLimited)
            #expect(right.header("Retry-After") != nil)
        }
    }
}
