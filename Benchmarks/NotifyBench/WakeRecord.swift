import BenchSupport
import Foundation
import Synchronization

/// When each write of a run started, committed and woke the listening side, by key
/// (`writer-sequence`), on one monotonic clock (writers and listener share the process).
final class WakeRecord: Sendable {
    private struct Times {
        var started: [String: UInt64] = [:]
        var committed: [String: UInt64] = [:]
        var woken: [String: UInt64] = [:]
    }

    private let times = Mutex(Times())

    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    func committed(_ key: String, started: UInt64, ended: UInt64) {
        times.withLock {
            $0.started[key] = started
            $0.committed[key] = ended
        }
    }

    /// The listening side heard of `keys` now; the first time counts.
    func woke(_ keys: some Sequence<Substring>, at time: UInt64 = WakeRecord.now()) {
        times.withLock { times in
            for key in keys where times.woken[String(key)] == nil { times.woken[String(key)] = time }
        }
    }

    /// The figures of a run over `seconds`.
    func summary(seconds: Double) -> WakeSummary {
        times.withLock { times in
            func milliseconds(_ from: UInt64, _ to: UInt64) -> Double { (Double(to) - Double(from)) / 1e6 }
            var fromStart: [Double] = []
            var afterCommit: [Double] = []
            var transaction: [Double] = []
            for (key, start) in times.started {
                guard let end = times.committed[key] else { continue }
                transaction.append(milliseconds(start, end))
                if let woken = times.woken[key] {
                    fromStart.append(milliseconds(start, woken))
                    afterCommit.append(milliseconds(end, woken))
                }
            }
            return WakeSummary(
                commits: times.committed.count, seconds: seconds, missed: times.committed.count - fromStart.count,
                fromStart: fromStart.sorted(), afterCommit: afterCommit.sorted(), transaction: transaction.sorted())
        }
    }
}

/// One run's figures.
struct WakeSummary {
    var commits: Int
    var seconds: Double
    /// Commits the listening side never heard of.
    var missed: Int
    var fromStart: [Double]
    var afterCommit: [Double]
    var transaction: [Double]

    static func p50p99(_ sorted: [Double]) -> String {
        guard !sorted.isEmpty else { return "–" }
        return String(format: "%.2f / %.2f", Stats.percentile(sorted, 0.5), Stats.percentile(sorted, 0.99))
    }
}
