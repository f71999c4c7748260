#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// An exclusive lock on a bot's state folder, so a second runner of the same bot on this
/// machine is refused instead of replying twice. Held until the lock is released or the
/// process ends (the kernel drops `flock` locks of dead processes).
final class RunnerLock: Sendable {
    private let fd: Mutex<Int32?>
    let path: String

    /// Takes the lock or throws naming the process that holds it.
    init(path: String, bot: String) throws {
        self.path = path
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw RunnerError("cannot open the lock file \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let holder = (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
            close(fd)
            let who = holder.map { " (pid \($0))" } ?? ""
            throw RunnerError(
                "bot '\(bot)' is already running in another runner\(who); stop it first (lock: \(path))")
        }
        ftruncate(fd, 0)
        let pid = "\(getpid())\n"
        _ = pid.withCString { write(fd, $0, strlen($0)) }
        self.fd = Mutex(fd)
    }

    /// Lets another runner take the bot; safe to call more than once.
    func release() {
        fd.withLock { fd in
            guard let open = fd else { return }
            flock(open, LOCK_UN)
            close(open)
            fd = nil
        }
    }

    deinit { release() }
}

/// A runner failure with a message a person can act on.
public struct RunnerError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
