import Foundation
import IMClient
import IMProtocol
import Testing

/// A send is retried with the same `client_msg_id`, so the server never stores it twice.
@Suite("IMClient send retry")
struct SendRetryTests {
    private func makeClient(_ answers: [ScriptedTransport.Answer], retry: RetryPolicy = RetryPolicy())
        -> (IMClient, ScriptedTransport, SleepRecorder)
    {
        let transport = ScriptedTransport(answers)
        let sleeper = SleepRecorder()
        let configuration = IMClient.Configuration(sendRetry: retry, sleep: sleeper.sleep, random: { 1 })
        return (IMClient(serverURL: Fixtures.server, transport: transport, token: "t", configuration: configuration),
                transport, sleeper)
    }

    private func clientIDs(_ transport: ScriptedTransport) -> [String?] {
        transport.requests.map { request in
            let json = request.body.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
            return json?["client_msg_id"] as? String
        }
    }

    @Test func aSendRetriedAfterALostConnectionReusesItsClientMessageID() async throws {
        let (client, transport, sleeper) = makeClient([
            .fail(Fixtures.lost), .respond(Fixtures.json(Fixtures.message("hello"), status: 201)),
        ])

        let message = try await client.send("hello", to: .user("bob"))

        let ids = clientIDs(transport)
        #expect(message.text == "hello")
        #expect(ids.count == 2)
        #expect(ids[0] != nil)
        #expect(ids[0] == ids[1])
        #expect(sleeper.recorded == [.milliseconds(250)])
    }

    @Test func aGivenClientMessageIDIsSentOnEveryAttempt() async throws {
        let (client, transport, _) = makeClient([
            .fail(Fixtures.refused), .fail(TransportError(code: .timedOut, message: "slow")),
            .respond(Fixtures.json(Fixtures.message("hello"), status: 200)),
        ])

        try await client.send("hello", to: .group("ops"), clientMessageID: "bot-reply-42")

        #expect(clientIDs(transport) == ["bot-reply-42", "bot-reply-42", "bot-reply-42"])
    }

    @Test func rateLimitedSendWaitsForRetryAfterThenRetries() async throws {
        let (client, transport, sleeper) = makeClient([
            .respond(Fixtures.error(.rateLimited, "too many requests: try again in 3 s", retryAfter: 3)),
            .respond(Fixtures.json(Fixtures.message("hello"), status: 201)),
        ])

        try await client.send("hello", to: .user("bob"))

        #expect(sleeper.recorded == [.seconds(3)])
        #expect(transport.requests.count == 2)
        #expect(Set(clientIDs(transport)).count == 1)
    }

    @Test func transportRetriesBackOffExponentially() async throws {
        let (client, _, sleeper) = makeClient(
            [.fail(Fixtures.lost), .fail(Fixtures.lost), .fail(Fixtures.lost),
             .respond(Fixtures.json(Fixtures.message("x"), status: 201))])

        try await client.send("x", to: .user("bob"))

        #expect(sleeper.recorded == [.milliseconds(250), .milliseconds(500), .seconds(1)])
    }

    @Test func attemptsAreBoundedAndTheLastErrorIsThrown() async throws {
        let (client, transport, _) = makeClient(
            [.fail(Fixtures.lost), .fail(Fixtures.lost), .fail(Fixtures.lost)], retry: RetryPolicy(maxAttempts: 3))

        let error = await #expect(throws: IMClientError.self) { try await client.send("x", to: .user("bob")) }

        #expect(error?.code == .connectionLost)
        #expect(transport.requests.count == 3)
    }

    @Test func errorAnswersOtherThanWaitAreNotRetried() async throws {
        let (client, transport, sleeper) = makeClient([.respond(Fixtures.error(.invalidRequest, "text must not be empty"))])

        let error = await #expect(throws: IMClientError.self) { try await client.send(" ", to: .user("bob")) }

        #expect(error?.code == .api(.invalidRequest))
        #expect(transport.requests.count == 1)
        #expect(sleeper.recorded.isEmpty)
    }

    @Test func aRetryAfterLongerThanTheLimitIsLeftToTheCaller() async throws {
        let (client, transport, sleeper) = makeClient(
            [.respond(Fixtures.error(.rateLimited, "wait", retryAfter: 600))],
            retry: RetryPolicy(maxRetryAfter: .seconds(60)))

        let error = await #expect(throws: IMClientError.self) { try await client.send("x", to: .user("bob")) }

        #expect(error?.code == .api(.rateLimited))
        #expect(error?.retryAfter == 600)
        #expect(transport.requests.count == 1)
        #expect(sleeper.recorded.isEmpty)
    }

    @Test func aBadURLIsNotRetried() async throws {
        let (client, transport, _) = makeClient([.fail(TransportError(code: .invalidURL, message: "invalid URL", requestNotSent: true))])

        let error = await #expect(throws: IMClientError.self) { try await client.send("x", to: .user("bob")) }

        #expect(error?.code == .unreachable)
        #expect(transport.requests.count == 1)
    }
}
