import Foundation

/// Blocking socket work on threads of its own: on the concurrency pool (two threads on
/// two cores) it would stall every task, the probe's included, and the latency the probe
/// measures would be the harness's own.
enum Threads {
    /// `body` on a new thread; its result.
    static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: body()) }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// `body(0..<count)` on `width` threads, results in order.
    static func map<T: Sendable>(_ count: Int, width: Int, _ body: @escaping @Sendable (Int) -> T) async -> [T] {
        await withTaskGroup(of: [(Int, T)].self) { group in
            for lane in 0..<width {
                group.addTask {
                    await run { stride(from: lane, to: count, by: width).map { ($0, body($0)) } }
                }
            }
            var results: [(Int, T)] = []
            for await lane in group { results += lane }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }
}
