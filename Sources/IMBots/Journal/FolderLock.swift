#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// An exclusive lock on a bot's state folder, so a second runner of the same bot on this
/// machine is refused instead of replying twice. Held until released or the process ends
/// (the kernel drops `flock` locks of dead processes).
final class FolderLock: Sendable {
    private let fd: Mutex<Int32?>
    let path: String

    /// Takes the lock or throws naming the process that holds it.
    init(path: String, bot: String) throws(RunnerError) {
        self.path = path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw RunnerError("cannot open the lock file \(path): \(SystemError.text())") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let holder = (try? LocalFiles.read(path)).flatMap { $0 }
                .map { String(decoding: $0, as: UTF8.self).filter(\.isNumber) }
            close(fd)
            let who = holder.map { $0.isEmpty ? "" : " (pid \($0))" } ?? ""
            throw RunnerError("bot '\(bot)' is already running in another runner\(who); stop it first (lock: \(path))")
        }
        fchmod(fd, 0o600)
        ftruncate(fd, 0)
        let pid = Array("\(getpid())\n".utf8)
        _ = pid.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
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
