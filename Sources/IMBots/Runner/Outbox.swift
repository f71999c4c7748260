import Foundation
import IMClient
import IMProtocol

/// The sends of one conversation, in order: each waits for the bot's budgets, is sent
/// with its deterministic client id (so a retry or a replay after a crash is dropped by
/// the server as a repeat), and is retried with backoff when the server cannot be
/// reached. A `429` pauses only this conversation. A send that keeps failing is given up
/// after `attempts` and reported, never silently dropped.
actor Outbox {
    /// How an item ended.
    enum Result: Sendable {
        case sent(Message)
        case failed(IMClientError)
    }

    private var items: [PendingMessage] = []
    private var running = false
    private let client: IMClient
    private let budget: SendBudget
    private let sleep: SleepFunction
    private let attempts: Int
    private let backoff: BackoffPolicy
    private let finished: @Sendable (PendingMessage, Result) async -> Void

    init(
        client: IMClient, budget: SendBudget, sleep: @escaping SleepFunction, attempts: Int = 4,
        backoff: BackoffPolicy = BackoffPolicy(base: .seconds(1), cap: .seconds(30)),
        finished: @escaping @Sendable (PendingMessage, Result) async -> Void
    ) {
        self.client = client
        self.budget = budget
        self.sleep = sleep
        self.attempts = attempts
        self.backoff = backoff
        self.finished = finished
    }

    func enqueue(_ item: PendingMessage) {
        items.append(item)
        guard !running else { return }
        running = true
        Task { await drain() }
    }

    /// Items waiting or being sent.
    var count: Int { items.count }

    private func drain() async {
        while let item = items.first {
            let result = await deliver(item)
            items.removeFirst()
            await finished(item, result)
        }
        running = false
    }

    private func deliver(_ message: PendingMessage) async -> Result {
        guard let address = ConversationAddress(message.to) else {
            return .failed(IMClientError(.invalidArgument, "'\(message.to)' is not a conversation address"))
        }
        var failures = 0
        while true {
            while let wait = budget.reserve(address) {
                try? await sleep(.milliseconds(Int(wait * 1000) + 1))
            }
            do {
                let sent = try await client.send(
                    message.text, to: address, replyTo: message.replyTo, clientMessageID: message.clientMessageID)
                return .sent(sent)
            } catch {
                failures += 1
                // Refusals (not a member, bad text) will not change by retrying.
                let retryable = error.isTransient || error.apiCode == .rateLimited || error.apiCode == .unavailable
                guard retryable, failures < attempts, !Task.isCancelled else { return .failed(error) }
                let delay = error.retryAfter.map { Duration.seconds($0) }
                    ?? backoff.delay(afterFailures: failures, random: Double.random(in: 0..<1))
                try? await sleep(delay)
            }
        }
    }
}
