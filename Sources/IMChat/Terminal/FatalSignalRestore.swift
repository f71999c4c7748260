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
/// into memory allocated up front: the saved settings and the bytes that leave the
/// alternate screen. It writes them, restores the default action and re-raises.
enum FatalSignalRestore {
    private struct Saved {
        var fd: Int32
        var output: Int32
        var settings: termios
        var bytes: UnsafeMutablePointer<UInt8>
        var count: Int
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
        let record = UnsafeMutablePointer<Saved>.allocate(capacity: 1)
        record.initialize(to: Saved(fd: fd, output: output, settings: settings, bytes: bytes, count: utf8.count))
        saved = record
        for number in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                if let saved = FatalSignalRestore.saved {
                    _ = Glibc.write(saved.pointee.output, saved.pointee.bytes, saved.pointee.count)
                    tcsetattr(saved.pointee.fd, TCSANOW, &saved.pointee.settings)
                }
                signal(number, SIG_DFL)
                raise(number)
            }
            action.sa_flags = Int32(truncatingIfNeeded: SA_RESETHAND)
            sigemptyset(&action.sa_mask)
            sigaction(number, &action, nil)
        }
    }

    static func disarm() {
        guard let record = saved else { return }
        for number in signals { signal(number, SIG_DFL) }
        saved = nil
        record.pointee.bytes.deallocate()
        record.deinitialize(count: 1)
        record.deallocate()
    }
}
