import Foundation
@testable import IMBots
import IMClient
import IMProtocol
import Synchronization
import Testing

/// The per-conversation send queues: a `429` in one conversation pauses that conversation
/// only, and the retry carries the same client id.
@Suite(.timeLimit(.minutes(1))) struct OutboxTests {
    @Test func aRateLimitPausesOnlyItsOwnConversation() async throws {
        let gate = SleepGate()
        let server = LimitedServer(limited: "alice")
        let client = IMClient(
            serverURL: "http://127.0.0.1:1", transport: server.transport, token: "sbt_test",
            configuration: .init(sleep: gate.sleep))
        let finished = AsyncStream.makeStream(of: (String, Outbox.Result).self)
        func outbox() -> Outbox {
            Outbox(
                client: client, budget: SendBudget(total: nil, perConversation: nil, perGroup: nil, clock: { 0 }),
                sleep: gate.sleep, finished: { item, result in finished.continuation.yield((item.to, result)) })
        }
        let (toAlice, toBob) = (outbox(), outbox())
        var results = finished.stream.makeAsyncIterator()

        await toAlice.enqueue(Self.pending(to: .user("alice"), id: "m-alice"))
        // Alice's conversation is told to wait 5 s and is now paused in that wait.
        #expect(await gate.nextSleep() == .seconds(5))

        await toBob.enqueue(Self.pending(to: .user("bob"), id: "m-bob"))
        let first = try #require(await results.next())
        #expect(first.0 == "user:bob")
        guard case .sent(let toBobSent) = first.1 else { Issue.record("bob's message failed: \(first.1)"); return }
        #expect(toBobSent.text == "to user:bob")

        gate.release()
        let second = try #require(await results.next())
        #expect(second.0 == "user:alice")
        guard case .sent = second.1 else { Issue.record("alice's message failed: \(second.1)"); return }
        #expect(server.clientIDs(for: "alice") == ["m-alice", "m-alice"])
        #expect(server.clientIDs(for: "bob") == ["m-bob"])
    }

    static func pending(to address: ConversationAddress, id: String) -> PendingMessage {
        PendingMessage(
            OutgoingMessage(to: address, text: "to \(address)", clientMessageID: id, rule: "answer", action: .reply),
            position: 1)
    }
}

/// A fake server whose first send to `limited` is answered with 429 and `Retry-After: 5`;
/// every other send succeeds. Records the client ids of the sends per conversation.
final class LimitedServer: Sendable {
    private let sent = Mutex<[(conversation: String, clientID: String)]>([])
    let limited: String
    var transport: FakeTransport {
        FakeTransport { [self] request in try self.answer(request) }
    }

    init(limited: String) { self.limited = limited }

    func clientIDs(for name: String) -> [String] {
        sent.withLock { $0.filter { $0.conversation == name }.map(\.clientID) }
    }

    private func answer(_ request: TransportRequest) throws -> TransportResponse {
        let body = try JSONDecoder().decode(SendMessageRequest.self, from: request.body ?? Data())
        let name = request.url.contains(limited) ? limited : "bob"
        let attempts = sent.withLock { sent in
            sent.append((name, body.clientMessageID ?? ""))
            return sent.filter { $0.conversation == name }.count
        }
        if name == limited && attempts == 1 {
            let envelope = ErrorEnvelope(error: APIError(.rateLimited, "slow down", retryAfter: 5))
            return TransportResponse(
                status: 429, headers: [("Content-Type", "application/json"), ("Retry-After", "5")],
                body: try WireJSON.encoder().encode(envelope))
        }
        let message = Message(
            id: MessageID(rawValue: Int64(attempts)), conversationID: ConversationID(rawValue: 1), seq: Int64(attempts),
            sender: "testbot", senderID: UserID(rawValue: 1), text: body.text,
            clientMessageID: body.clientMessageID, createdAt: Timestamp(milliseconds: 1_700_000_000_000))
        return TransportResponse(
            status: 200, headers: [("Content-Type", "application/json")], body: try WireJSON.encoder().encode(message))
    }
}

/// A sleep function that records each wait and holds it until `release()`.
final class SleepGate: Sendable {
    private struct State {
        var asked: [Duration] = []
        var sleepers: [CheckedContinuation<Void, Never>] = []
        var watchers: [CheckedContinuation<Duration, Never>] = []
        var released = false
    }

    private let state = Mutex(State())

    var sleep: SleepFunction {
        { [self] duration in
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state -> Bool in
                    if let watcher = state.watchers.first {
                        state.watchers.removeFirst()
                        watcher.resume(returning: duration)
                    } else {
                        state.asked.append(duration)
                    }
                    if state.released { return true }
                    state.sleepers.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
    }

    /// The duration of the next sleep asked for (waits until one is).
    func nextSleep() async -> Duration {
        await withCheckedContinuation { continuation in
            state.withLock { state in
                if !state.asked.isEmpty {
                    continuation.resume(returning: state.asked.removeFirst())
                } else {
                    state.watchers.append(continuation)
                }
            }
        }
    }

    /// Ends every sleep, now and later.
    func release() {
        let sleepers = state.withLock { state in
            state.released = true
            defer { state.sleepers = [] }
            return state.sleepers
        }
        for sleeper in sleepers { sleeper.resume() }
    }
}
