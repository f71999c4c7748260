import IMProtocol
import Lifecycle
import Synchronization

/// Caps how many messages a bot sends into one conversation per minute, so two bots
/// answering each other cannot loop forever.
///
/// Conversations with no send in the last minute are forgotten, so the table holds only
/// the conversations active in that minute.
final class LoopGuard: Sendable {
    private struct State {
        var sent: [String: [Double]] = [:]
        var lastPrune = 0.0
    }

    private let maxPerMinute: Int
    private let time: any TimeSource
    private let state = Mutex(State())

    init(maxPerMinute: Int, time: any TimeSource) {
        self.maxPerMinute = max(1, maxPerMinute)
        self.time = time
    }

    /// Counts a send into `address`; false when the cap for the last minute is reached
    /// (the send must be suppressed).
    func allow(_ address: ConversationAddress) -> Bool {
        let now = time.seconds
        return state.withLock { state in
            if now - state.lastPrune > 60 {
                state.lastPrune = now
                state.sent = state.sent.filter { _, times in times.contains { now - $0 < 60 } }
            }
            var times = state.sent[address.description, default: []].filter { now - $0 < 60 }
            guard times.count < maxPerMinute else {
                state.sent[address.description] = times
                return false
            }
            times.append(now)
            state.sent[address.description] = times
            return true
        }
    }

    /// Conversations tracked now (for tests of the pruning).
    var conversationCount: Int { state.withLock { $0.sent.count } }
}
