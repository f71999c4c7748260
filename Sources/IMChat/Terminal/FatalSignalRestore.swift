#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Restores the terminal when the process dies of a fatal signal (a Swift trap is
/// SIGILL or SIGTRAP, a bad pointer SIGSEGV or SIGBUS, `abort` SIGABRT), so a crash
/// never leaves the shell in raw mode on the alternate screen.
///
/// The handler may only use async-signal-safe calls, so everything it needs is copied
/// into memory allocated up front: the saved settings, the bytes that leave the
/// alternate screen, and the handlers that were there before (the Swift runtime's crash
/// report). It writes the bytes, restores the settings, puts the earlier handler back
/// and re-raises, so the crash report then prints on a terminal in its normal state.
enum FatalSignalRestore {
    private struct Saved {
        var fd: Int32
        var output: Int32
        var settings: termios
        var bytes: UnsafeMutablePointer<UInt8>
        var count: Int
        /// The earlier action of each of `signals`, in the same order.
        var previous: UnsafeMutablePointer<sigaction>
    }

    // Written only by `arm` and `disarm` on the thread that owns the terminal, before the
    // handlers are installed and after they are removed; the handler only reads it.
    nonisolated(unsafe) private static var saved: UnsafeMutablePointer<Saved>?

    private static let signals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE]

    static func arm(fd: Int32, saved settings: termios, output: Int32, bytes text: String) {
        disarm()
        let utf8 = Array(text.utf8)
        let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: utf8.count)
        bytes.initialize(from: utf8, count: utf8.count)
        let previous = UnsafeMutablePointer<sigaction>.allocate(capacity: signals.count)
        previous.initialize(repeating: sigaction(), count: signals.count)
        let record = UnsafeMutablePointer<Saved>.allocate(capacity: 1)
        record.initialize(to: Saved(
            fd: fd, output: output, settings: settings, bytes: bytes, count: utf8.count, previous: previous))
        saved = record
        for (index, number) in signals.enumerated() {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                guard let saved = FatalSignalRestore.saved else {
                    signal(number, SIG_DFL)
                    raise(number)
                    return
                }
                _ = Glibc.write(saved.pointee.output, saved.pointee.bytes, saved.pointee.count)
                tcsetattr(saved.pointee.fd, TCSANOW, &saved.pointee.settings)
                let index = FatalSignalRestore.signals.firstIndex(of: number) ?? 0
                sigaction(number, saved.pointee.previous + index, nil)
                raise(number)
            }
            action.sa_flags = Int32(truncatingIfNeeded: SA_RESETHAND)
            sigemptyset(&action.sa_mask)
            sigaction(number, &action, previous + index)
        }
    }

    static func disarm() {
        guard let record = saved else { return }
        for (index, number) in signals.enumerated() { sigaction(number, record.pointee.previous + index, nil) }
        saved = nil
        record.pointee.previous.deallocate()
        record.pointee.bytes.deallocate()
        record.deinitialize(count: 1)
        record.deallocate()
    }
}
