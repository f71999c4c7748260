#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Synchronization

/// Turns SIGINT and SIGTERM (or any signals) into a call, while it lives: the first one
/// asks for a graceful stop; a second one exits the process at once (status 130).
///
/// While any watcher of a signal exists its disposition is "ignore", so that only the
/// dispatch sources see it; the last watcher to go restores what was there before, so a
/// program embedding this (a test run) can still be interrupted afterwards.
public final class ShutdownSignals: Sendable {
    private let sources: [SignalSource]

    /// Calls `handler` on the first of `signals`; exits on the second.
    public init(_ signals: [Int32] = [SIGINT, SIGTERM], handler: @escaping @Sendable (Int32) -> Void) {
        let seen = SeenFlag()
        sources = signals.map { number in
            SignalSource(number) {
                if seen.flag.exchange(true, ordering: .relaxed) { _exit(130) }
                handler(number)
            }
        }
    }

    /// Returns once every signal is watched; see ``SignalSource/armed()``.
    public func armed() async {
        for source in sources { await source.armed() }
    }

    /// Stops watching; see ``SignalSource/cancel()``.
    public func cancel() {
        for source in sources { source.cancel() }
    }
}

/// Calls a function on every delivery of one signal (SIGHUP for a reload, say) until
/// cancelled. While it watches, the signal's disposition is "ignore", so only it sees
/// the signal.
public final class SignalSource: Sendable {
    // DispatchSource is thread-safe; it is resumed once here and only cancelled later.
    private nonisolated(unsafe) let source: any DispatchSourceSignal
    private let number: Int32
    private let cancelled = Atomic<Bool>(false)
    private let registered = Latch()

    public init(_ number: Int32, handler: @escaping @Sendable () -> Void) {
        self.number = number
        SignalDispositions.ignore([number])
        source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler(handler: handler)
        source.setRegistrationHandler { [registered] in registered.open() }
        source.resume()
    }

    /// Returns once the signal is watched. Dispatch registers a source after `resume`, on
    /// a thread of its own; the signal is ignored from `init` on, so one that arrives
    /// before the registration is lost (a loaded machine made that window seconds long).
    public func armed() async {
        await registered.wait()
    }

    /// Stops watching; the last watcher of the signal restores its earlier disposition.
    public func cancel() {
        guard !cancelled.exchange(true, ordering: .relaxed) else { return }
        source.cancel()
        SignalDispositions.release([number])
    }

    deinit { cancel() }
}

private final class SeenFlag: Sendable {
    let flag = Atomic<Bool>(false)
}

/// Reference counts per signal of who needs it ignored, and what to restore.
private enum SignalDispositions {
    private struct State {
        var users: [Int32: Int] = [:]
        var previous: [Int32: __sighandler_t?] = [:]
    }

    private static let state = Mutex(State())

    static func ignore(_ numbers: [Int32]) {
        state.withLock { state in
            for number in numbers {
                if state.users[number, default: 0] == 0 { state.previous[number] = signal(number, SIG_IGN) }
                state.users[number, default: 0] += 1
            }
        }
    }

    static func release(_ numbers: [Int32]) {
        state.withLock { state in
            for number in numbers {
                state.users[number, default: 1] -= 1
                guard state.users[number] == 0, let previous = state.previous.removeValue(forKey: number) else { continue }
                signal(number, previous)
            }
        }
    }
}
