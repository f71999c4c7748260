import IMClient
import Synchronization

/// A sleep function that records every wait and (unless told otherwise) returns at once,
/// so backoff and `Retry-After` are checked without real waiting.
final class SleepRecorder: Sendable {
    private let waits = Mutex<[Duration]>([])
    /// After this many waits, the next one throws `CancellationError` (ends a stream).
    private let cancelAfter: Int?
    /// Also waits for real (for a server whose budget must refill in real time).
    private let sleepingForReal: Bool

    init(cancelAfter: Int? = nil, sleepingForReal: Bool = false) {
        self.cancelAfter = cancelAfter
        self.sleepingForReal = sleepingForReal
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
            if sleepingForReal { try await Task.sleep(for: duration) }
        }
    }
}
