import Dispatch
import Synchronization

/// A count the workers raise and a watcher reads (acknowledged sends, replies seen), and
/// whether the workers are done.
final class Progress: Sendable {
    private let count = Atomic<Int>(0)
    private let finished = Atomic<Bool>(false)
    private let finishedAt = Atomic<UInt64>(0)

    func add(_ amount: Int = 1) { count.add(amount, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }

    func finish() {
        finishedAt.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
        finished.store(true, ordering: .releasing)
    }

    var isFinished: Bool { finished.load(ordering: .acquiring) }

    /// How long ago the workers finished; zero while they work.
    var finishedFor: Duration {
        guard isFinished else { return .zero }
        return .nanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - finishedAt.load(ordering: .relaxed)))
    }

    /// Returns once the count reaches `target` or the workers are done; whether it reached it.
    func wait(for target: Int) async -> Bool {
        while value < target {
            if isFinished { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }
}
