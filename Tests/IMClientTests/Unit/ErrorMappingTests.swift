import Foundation
import IMClient
import IMProtocol
import Testing

/// Failures become one `IMClientError` whose code is stable and whose message names the cause.
@Suite("IMClientError mapping")
struct ErrorMappingTests {
    private func failure(
        _ answer: ScriptedTransport.Answer, token: String? = "sbt_x",
        _ call: @Sendable (IMClient) async throws(IMClientError) -> Void
    ) async -> IMClientError? {
        let client = IMClient(
            serverURL: Fixtures.server, transport: ScriptedTransport([answer]), token: token,
            configuration: IMClient.Configuration(sendRetry: .never))
        do {
            try await call(client)
            return nil
        } catch {
            return error
        }
    }

    @Test func refusedConnectionNamesTheServerURLAndTheCause() async throws {
        let error = try #require(await failure(.fail(Fixtures.refused)) { client throws(IMClientError) in
            _ = try await client.me()
        })

        #expect(error.code == .unreachable)
        #expect(error.message == "server not reachable at http://127.0.0.1:8080 (connection refused)")
        #expect(error.transport == Fixtures.refused)
        #expect(error.isTransient)
    }

    @Test func lostConnectionAndTimeoutKeepTheirOwnCodes() async throws {
        let lost = try #require(await failure(.fail(Fixtures.lost)) { client throws(IMClientError) in
            _ = try await client.me()
        })
        let slow = TransportError(code: .timedOut, message: "no complete response from 127.0.0.1:8080 in time (x)")
        let timedOut = try #require(await failure(.fail(slow)) { client throws(IMClientError) in
            _ = try await client.me()
        })

        #expect(lost.code == .connectionLost)
        #expect(lost.message.contains("http://127.0.0.1:8080"))
        #expect(timedOut.code == .timedOut)
    }

    @Test func badCredentialsSayWrongPasswordForTheUser() async throws {
        let answer = Fixtures.error(.unauthorized, "wrong username or password", reason: "bad_credentials")
        let error = try #require(await failure(.respond(answer), token: nil) { client throws(IMClientError) in
            try await client.login(username: "Alice", password: "nope-nope-nope")
        })

        #expect(error.code == .api(.unauthorized))
        #expect(error.message.hasPrefix("wrong password for alice"))
        #expect(error.api?.reason == "bad_credentials")
    }

    @Test func aTakenNameSaysSo() async throws {
        let answer = Fixtures.error(.conflict, "the username 'alice' is taken", field: "username")
        let error = try #require(await failure(.respond(answer), token: nil) { client throws(IMClientError) in
            try await client.register(username: "alice", password: "pw-pw-pw-pw")
        })

        #expect(error.code == .api(.conflict))
        #expect(error.message.contains("'alice' is taken"))
        #expect(error.api?.field == "username")
    }

    @Test func aKickedOutTokenSaysLoggedInElsewhere() async throws {
        let answer = Fixtures.error(
            .unauthorized, "this login was ended because the account logged in elsewhere (device 'cli')",
            reason: "kicked_out")
        let error = try #require(await failure(.respond(answer)) { client throws(IMClientError) in
            _ = try await client.conversations()
        })

        #expect(error.code == .kickedOut)
        #expect(error.message == "logged in elsewhere: this login was ended because the account logged in elsewhere (device 'cli')")
        #expect(error.apiCode == .unauthorized)
    }

    @Test func otherAPIErrorsKeepCodeReasonAndRetryAfter() async throws {
        let answer = Fixtures.error(.forbidden, "you are muted in this conversation", reason: "muted")
        let error = try #require(await failure(.respond(answer)) { client throws(IMClientError) in
            try await client.send("x", to: .group("ops"))
        })
        let limited = try #require(await failure(.respond(Fixtures.error(.rateLimited, "slow down", retryAfter: 7))) {
            client throws(IMClientError) in _ = try await client.contacts()
        })

        #expect(error.code == .api(.forbidden))
        #expect(error.message == "you are muted in this conversation")
        #expect(error.api?.reason == "muted")
        #expect(limited.code == .api(.rateLimited))
        #expect(limited.retryAfter == 7)
    }

    @Test func retryAfterHeaderFillsAMissingBodyValue() async throws {
        var answer = Fixtures.error(.unavailable, "busy")
        answer.headers.append(("Retry-After", "12"))
        let error = try #require(await failure(.respond(answer)) { client throws(IMClientError) in
            _ = try await client.contacts()
        })

        #expect(error.retryAfter == 12)
    }

    @Test func anUndecodableAnswerIsABadResponseNamingTheCall() async throws {
        let answer = TransportResponse(status: 200, body: Data(#"{"id":"1"}"#.utf8))
        let error = try #require(await failure(.respond(answer)) { client throws(IMClientError) in
            _ = try await client.me()
        })

        #expect(error.code == .badResponse)
        #expect(error.message.contains("GET /v1/me"))
        #expect(error.message.contains("missing field"))
    }

    @Test func anErrorPageWithoutTheEnvelopeKeepsItsStatus() async throws {
        let answer = TransportResponse(status: 502, body: Data("<html>Bad Gateway</html>".utf8))
        let error = try #require(await failure(.respond(answer)) { client throws(IMClientError) in
            _ = try await client.me()
        })

        #expect(error.code == .badResponse)
        #expect(error.message.contains("HTTP 502"))
        #expect(error.message.contains("Bad Gateway"))
    }

    @Test func anInvalidHistoryPageSizeIsRejectedBeforeSending() async throws {
        let transport = ScriptedTransport([])
        let client = IMClient(serverURL: Fixtures.server, transport: transport, token: "t")

        let error = await #expect(throws: IMClientError.self) { try await client.history(.user("bob"), limit: 0) }

        #expect(error?.code == .invalidArgument)
        #expect(transport.requests.isEmpty)
    }
}
