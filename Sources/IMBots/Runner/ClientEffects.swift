import Foundation
import IMClient
import IMProtocol
import Synchronization

/// The runner's `BotEffects`: messages go to per-conversation outboxes (budgets, loop
/// guard, retries, 429 pauses per conversation) and are sent in the background; profile
/// changes and `http` actions happen at once, with their own retries for `http`.
struct ClientEffects: BotEffects {
    let client: IMClient
    let transport: any HTTPTransport
    /// Queues a message for an event; false when the loop guard suppressed it.
    let enqueue: @Sendable (OutgoingMessage) async -> Bool
    let sleep: SleepFunction

    func send(_ message: OutgoingMessage) async throws -> Message? {
        guard await enqueue(message) else {
            throw ActionSuppressed(message: "loop guard: too many messages into \(message.to) in the last minute")
        }
        // Sent in the background; the stored message is not known here.
        return nil
    }

    func updateProfile(_ update: ProfileUpdate) async throws {
        _ = try await client.updateProfile(update)
    }

    func http(_ request: TransportRequest) async throws -> TransportResponse {
        var failures = 0
        let backoff = BackoffPolicy(base: .milliseconds(500), cap: .seconds(8))
        while true {
            do {
                let response = try await transport.send(request)
                // Server trouble is worth another try; the request carries an
                // Idempotency-Key, so a receiver that honours it acts once.
                guard [429, 502, 503, 504].contains(response.status), failures < 2 else { return response }
            } catch let error as TransportError where error.code != .cancelled && error.code != .invalidURL && failures < 2 {
                _ = error
            }
            failures += 1
            try await sleep(backoff.delay(afterFailures: failures, random: Double.random(in: 0..<1)))
        }
    }
}

/// A send the loop guard held back.
struct ActionSuppressed: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
