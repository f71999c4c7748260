import Foundation
import IMClient
import IMProtocol
import MatrixClient
import Synchronization
import Testing

/// `M_LIMIT_EXCEEDED` is the client core's `RATE_LIMITED`, and its `retry_after_ms` is
/// waited out by the client core's one retry loop.
@Suite("Matrix rate limits")
struct MatrixRetryTests {
    private static func limited(_ milliseconds: Int) -> TransportResponse {
        TransportResponse(status: 429, body: Data(#"{"errcode":"M_LIMIT_EXCEEDED","error":"Too Many Requests","retry_after_ms":\#(milliseconds)}"#.utf8))
    }

    @Test func aRateLimitedSendWaitsWhatTheHomeserverAskedThenSucceedsOnce() async throws {
        let transport = FakeTransport(script: [
            .success(Self.limited(1500)),
            .success(TransportResponse(status: 200, body: Data(#"{"event_id":"$sent"}"#.utf8))),
        ])
        let waits = Mutex<[Duration]>([])
        let client = MatrixClient(
            homeserver: "http://127.0.0.1:1", session: MatrixSession(userID: MatrixUserID("@bot:test")!, accessToken: "t", deviceID: "D"),
            transport: transport,
            configuration: .init(sleep: { wait in waits.withLock { $0.append(wait) } }))
        let id = try await client.sendText("hi", to: "!room:test", transactionID: "txn-1")
        #expect(id == "$sent")
        #expect(waits.withLock { $0 } == [.seconds(2)])  // 1.5 s rounded up to whole seconds
        // Both attempts carry the same transaction id: the homeserver can tell the repeat.
        #expect(transport.requests.map(\.url).allSatisfy { $0.hasSuffix("/send/m.room.message/txn-1") })
    }

    @Test func withRetriesOffTheWaitReachesTheCaller() async throws {
        let transport = FakeTransport(script: [.success(Self.limited(250))])
        let client = MatrixClient(
            homeserver: "http://127.0.0.1:1", session: MatrixSession(userID: MatrixUserID("@bot:test")!, accessToken: "t", deviceID: "D"),
            transport: transport, configuration: .init(retry: .never))
        let error = await #expect(throws: IMClientError.self) {
            try await client.sendText("hi", to: "!room:test", transactionID: "txn-1")
        }
        #expect(error?.apiCode == .rateLimited)
        #expect(error?.retryAfter == 1)
        #expect(error?.api?.reason == "M_LIMIT_EXCEEDED")
    }
}
