import Synchronization
@testable import switchboard

/// A `TextSink` that keeps everything written, and lets a test wait for a line.
final class CapturedText: TextSink {
    private struct State {
        var text = ""
        var waiters: [(needle: String, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    /// Everything written so far.
    var text: String { state.withLock { $0.text } }

    /// The lines written so far, without their line ends.
    var lines: [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    func write(_ text: String) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.text += text
            let all = state.text
            let (met, waiting) = (state.waiters.filter { all.contains($0.needle) },
                                  state.waiters.filter { !all.contains($0.needle) })
            state.waiters = waiting
            return met.map(\.continuation)
        }
        for continuation in ready { continuation.resume() }
    }

    /// Returns once the text contains `needle`.
    func waitFor(_ needle: String) async {
        await withCheckedContinuation { continuation in
            let met = state.withLock { state in
                if state.text.contains(needle) { return true }
                state.waiters.append((needle, continuation))
                return false
            }
            if met { continuation.resume() }
        }
    }
}
