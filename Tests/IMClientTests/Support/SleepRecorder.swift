import IMClient
import Synchronization

/// A sleep function that records every wait and returns at once, so backoff and
/// `Retry-After` are checked without real waiting.
final class SleepRecorder: Sendable {
    private let waits = Mutex<[Duration]>([])
    /// After this many waits, the next one throws `CancellationError` (ends a stream).
    private let cancelAfter: Int?

    init(cancelAfter: Int? = nil) {
        self.cancelAfter = cancelAfter
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
        }
    }
}
