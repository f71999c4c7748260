import Foundation
@testable import IMBots
import IMClient
import IMProtocol
import Lifecycle
import Synchronization
import TestSupport
import Testing

/// The per-conversation send queues: the one retry layer for sends, a `429` that pauses
/// only its own conversation, and a cap that sheds replies but never alerts.
@Suite(.timeLimit(.minutes(1))) struct OutboxTests {
    @Test func aRateLimitPausesOnlyItsOwnConversationAndTheRetryKeepsTheClientID() async throws {
        let server = LimitedServer(limited: "alice")
        let fixture = try await BotPartsFixture(transport: server.transport)
        let loggedIn = Latch()
        loggedIn.open()
        let outbox = Outbox(parts: fixture.parts, loggedIn: loggedIn)
        try await withService(outbox) {
            outbox.offer([BotPartsFixture.reply(to: .user("alice"), id: "m-alice")])
            // Alice's conversation was told to wait 5 s and waits on the runner's clock.
            await fixture.time.waitForSleepers(1)
            #expect(server.clientIDs(for: "alice") == ["m-alice"])

            outbox.offer([BotPartsFixture.reply(to: .user("bob"), id: "m-bob")])
            try await eventually("bob's message went out while alice's waits") {
                server.clientIDs(for: "bob") == ["m-bob"]
            }
            #expect(server.clientIDs(for: "alice") == ["m-alice"])

            fixture.time.advance(by: .seconds(5))
            try await eventually("alice's message went out after the pause") { outbox.count == 0 }
            // One retry, with the same client id: the server can drop a repeat.
            #expect(server.clientIDs(for: "alice") == ["m-alice", "m-alice"])
            #expect(server.clientIDs(for: "bob") == ["m-bob"])
        }
        // Both are done in the journal.
        #expect(fixture.parts.journal.state.outbox.isEmpty)
    }

    @Test func aFullQueueShedsTheOldestReplyWithAnAuditLineAndNeverAnAlert() async throws {
        let fixture = try await BotPartsFixture(transport: LimitedServer(limited: "nobody").transport)
        // Not logged in: nothing is sent, the queue (cap 3) only fills.
        let outbox = Outbox(parts: fixture.parts, loggedIn: Latch())
        let replies = (1...5).map { BotPartsFixture.reply(to: .user("alice"), id: "r\($0)") }
        fixture.parts.journal.record(.handled(position: 1, state: [], messages: replies))
        #expect(outbox.offer(replies).isEmpty)
        #expect(outbox.count == 3)
        #expect(fixture.parts.metrics.shedCount(bot: "testbot", .message) == 2)
        #expect(fixture.parts.journal.state.outbox.map(\.clientMessageID) == ["r3", "r4", "r5"])
        #expect(fixture.auditLines.filter { $0.contains(#""outcome":"shed""#) }.count == 2)
        #expect(fixture.auditLines.first?.contains("r1") == false && fixture.auditLines.first?.contains("to user:alice") == true)

        // Alerts push replies out, and are refused (not shed) once only alerts are left.
        let handle = BotHandle(parts: fixture.parts, outbox: outbox)
        for index in 1...3 {
            let alert = OutgoingMessage(to: .user("alice"), text: "alert \(index)", clientMessageID: "a\(index)",
                                        rule: "alerts", action: .send)
            #expect(handle.queueAlert(alert))
        }
        let fourth = OutgoingMessage(to: .user("alice"), text: "alert 4", clientMessageID: "a4", rule: "alerts",
                                     action: .send)
        #expect(handle.queueAlert(fourth) == false)
        #expect(fixture.parts.journal.state.outbox.map(\.clientMessageID) == ["a1", "a2", "a3"])
        #expect(fixture.parts.metrics.shedCount(bot: "testbot", .message) == 5)
    }

    @Test func aStoppingOutboxSendsWhatIsQueuedFirst() async throws {
        let server = LimitedServer(limited: "nobody")
        let fixture = try await BotPartsFixture(transport: server.transport)
        let loggedIn = Latch()
        let outbox = Outbox(parts: fixture.parts, loggedIn: loggedIn)
        outbox.offer([BotPartsFixture.reply(to: .user("bob"), id: "b1"),
                            BotPartsFixture.reply(to: .user("carol"), id: "c1")])
        let task = Task { try await outbox.run() }
        // Stopped before it could send (not logged in yet): it still sends what it holds.
        task.cancel()
        loggedIn.open()
        try await task.value
        #expect(Set(server.sent.map(\.clientID)) == ["b1", "c1"])
    }
}

/// Runs `service` for `body`, then cancels it and waits for it to end.
func withService(_ service: some Service, _ body: () async throws -> Void) async throws {
    let task = Task { try await service.run() }
    do {
        try await body()
    } catch {
        task.cancel()
        _ = try? await task.value
        throw error
    }
    task.cancel()
    try await task.value
}

/// A fake server whose first send to `limited` is answered with 429 and `Retry-After: 5`;
/// every other send succeeds. Records the client ids of the sends per conversation.
final class LimitedServer: Sendable {
    private let recorded = Mutex<[(conversation: String, clientID: String)]>([])
    let limited: String
    var transport: FakeTransport {
        FakeTransport { [self] request in try self.answer(request) }
    }

    init(limited: String) { self.limited = limited }

    var sent: [(conversation: String, clientID: String)] { recorded.withLock { $0 } }

    func clientIDs(for name: String) -> [String] {
        sent.filter { $0.conversation == name }.map(\.clientID)
    }

    private func answer(_ request: TransportRequest) throws -> TransportResponse {
        let body = try JSONDecoder().decode(SendMessageRequest.self, from: request.body ?? Data())
        let name = request.url.components(separatedBy: "user:").last?.components(separatedBy: "/").first ?? "?"
        let attempts = recorded.withLock { sent in
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
