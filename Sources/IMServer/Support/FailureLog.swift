import Logging
import Synchronization

/// Where failed requests are logged. An internal error is one line each, with what
/// failed. The store being out of reach (the database down, the disk full or read-only)
/// is one line when it starts and one when requests are answered again, with the number
/// refused meanwhile: an outage with thousands of clients retrying would otherwise write
/// thousands of lines a second, just when the log is read.
final class FailureLog: Sendable {
    private struct Outage {
        var since: Double
        var refused: Int
    }

    private let logger: Logger
    private let monotonic: @Sendable () -> Double
    private let outage = Mutex<Outage?>(nil)
    /// Checked by every answer without taking the lock.
    private let inOutage = Atomic<Bool>(false)
    /// Requests refused with 503 because the store was out of reach, for `/metrics`.
    let refusedForStorage = Atomic<Int>(0)

    init(logger: Logger, monotonic: @escaping @Sendable () -> Double) {
        self.logger = logger
        self.monotonic = monotonic
    }

    /// Logs a failed request as its mapping says: `request` names it (`POST /v1/...`).
    func failed(_ request: String, route: String, error: any Error, logged: ErrorMapping.Logged) {
        switch logged {
        case .no:
            return
        case .internalError:
            logger.error("\(request) failed: \(String(describing: error))", [("route", route)])
        case .unavailable:
            refusedForStorage.add(1, ordering: .relaxed)
            let started = outage.withLock { outage -> Bool in
                if outage != nil {
                    outage?.refused += 1
                    return false
                }
                outage = Outage(since: monotonic(), refused: 1)
                inOutage.store(true, ordering: .releasing)
                return true
            }
            if started {
                logger.error("the store is out of reach; requests that need it are answered 503 until it is back "
                             + "(first: \(request): \(String(describing: error)))", [("route", route)])
            }
        }
    }

    /// A request that needed the store was answered: ends an outage, saying how long it
    /// lasted and how many requests it refused.
    func answered() {
        guard inOutage.load(ordering: .acquiring) else { return }
        guard let ended = outage.withLock({ outage -> Outage? in
            defer { outage = nil }
            inOutage.store(false, ordering: .releasing)
            return outage
        }) else { return }
        let seconds = Int((monotonic() - ended.since).rounded())
        logger.warning("the store answers again after \(seconds) s; \(ended.refused) requests were refused meanwhile")
    }
}
