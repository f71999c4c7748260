#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// An exclusive `flock` on a file that holds the holder's pid, kept until `release()` or
/// until the process ends (the kernel drops the locks of a process that is gone, however
/// it ended). For "one process at a time here": a server on its data folder, a runner on
/// a bot's state folder.
///
/// `flock` locks belong to an open file, so a second lock on the same path is refused
/// within one process too.
public final class FileLock: Sendable {
    /// Why the lock was not taken.
    public enum Failure: Error, Sendable, Equatable {
        /// Another open file holds it; the pid that process wrote, when there is one.
        case held(pid: String?)
        /// The lock file cannot be opened (the system's reason).
        case cannotOpen(String)
    }

    public let path: String
    private let fd: Mutex<Int32?>

    /// Takes the lock on `path` (created with `mode` when missing) and writes this
    /// process's pid into it.
    public init(path: String, mode: mode_t = 0o600) throws(Failure) {
        self.path = path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, mode)
        guard fd >= 0 else { throw .cannotOpen(String(cString: strerror(errno))) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            var bytes = [UInt8](repeating: 0, count: 32)
            let count = read(fd, &bytes, bytes.count)
            close(fd)
            let pid = count > 0 ? String(decoding: bytes[..<count], as: UTF8.self).filter(\.isNumber) : ""
            throw .held(pid: pid.isEmpty ? nil : pid)
        }
        ftruncate(fd, 0)
        let pid = Array("\(getpid())\n".utf8)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        self.fd = Mutex(fd)
    }

    /// Lets another process take the lock; safe to call more than once.
    public func release() {
        fd.withLock { fd in
            guard let open = fd else { return }
            flock(open, LOCK_UN)
            close(open)
            fd = nil
        }
    }

    deinit { release() }
}
