import IMClient
import Lifecycle
import Synchronization

/// A sleep function that records every wait and (unless told otherwise) returns at once,
/// so backoff and `Retry-After` are checked without real waiting.
final class SleepRecorder: Sendable {
    private let waits = Mutex<[Duration]>([])
    /// After this many waits, the next one throws `CancellationError` (ends a stream).
    private let cancelAfter: Int?
    /// Moves this clock by each wait (the server's, so that its budgets refill as if the
    /// client had waited).
    private let advancing: ManualTime?

    init(cancelAfter: Int? = nil, advancing: ManualTime? = nil) {
        self.cancelAfter = cancelAfter
        self.advancing = advancing
    }

    /// The waits asked for, in order.
    var recorded: [Duration] { waits.withLock { $0 } }

    var sleep: SleepFunction {
        { [self] duration in
            let count = waits.withLock { waits -> Int in
                waits.append(duration)
                return waits.count
            }
            if let cancelAfter, count > cancelAfter { throw CancellationError() }
            advancing?.advance(by: duration)
        }
    }
}
