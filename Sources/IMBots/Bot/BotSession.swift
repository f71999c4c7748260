import Lifecycle
import Synchronization

/// The bot's login as its parts see it: who it is once logged in, and a gate the
/// outbox and the lanes wait at until then.
final class BotSession: Sendable {
    /// Opens once the bot is logged in and set up.
    let loggedIn = Latch()
    private let current: Mutex<BotContext.Identity>
    /// When this run started, on the wall clock: the `on_start` backlog counts from here.
    let startedAt: Int64

    init(identity: BotContext.Identity, startedAt: Int64) {
        current = Mutex(identity)
        self.startedAt = startedAt
    }

    var identity: BotContext.Identity { current.withLock { $0 } }

    /// Marks the bot logged in as `identity`.
    func begin(as identity: BotContext.Identity) {
        current.withLock { $0 = identity }
        loggedIn.open()
    }
}
