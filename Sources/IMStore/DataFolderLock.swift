#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// The lock a server holds on its data folder while it runs (`DIR/switchboard.lock`, an
/// exclusive `flock`): a second server on the same folder, or a restore into it, is
/// refused instead of the two sharing one database behind each other's back. The
/// kernel drops the lock when the process ends, however it ends.
///
/// `switchboard user --data` and `switchboard backup` do not take it: SQLite lets them
/// work beside a running server.
public final class DataFolderLock: Sendable {
    /// The lock file's name inside the data folder.
    public static let fileName = "switchboard.lock"

    private let fd: Mutex<Int32?>
    public let path: String

    /// Takes the lock on `directory` (which must exist), or throws naming the process
    /// that holds it.
    public init(directory: String) throws(DataFolderLock.Held) {
        path = (directory as NSString).appendingPathComponent(Self.fileName)
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw Held(path: path, holder: nil, reason: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            var bytes = [UInt8](repeating: 0, count: 32)
            let count = read(fd, &bytes, bytes.count)
            close(fd)
            let pid = count > 0 ? String(decoding: bytes[..<count], as: UTF8.self).filter(\.isNumber) : ""
            throw Held(path: path, holder: pid.isEmpty ? nil : pid, reason: nil)
        }
        ftruncate(fd, 0)
        let pid = Array("\(getpid())\n".utf8)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        self.fd = Mutex(fd)
    }

    /// Lets another process take the folder; safe to call more than once.
    public func release() {
        fd.withLock { fd in
            guard let open = fd else { return }
            flock(open, LOCK_UN)
            close(open)
            fd = nil
        }
    }

    deinit { release() }

    /// The folder is locked by another process (or the lock file cannot be opened).
    public struct Held: Error, CustomStringConvertible, Sendable {
        public var path: String
        /// The pid written in the lock file by the process holding it, when known.
        public var holder: String?
        /// Set when the lock file itself could not be opened.
        public var reason: String?

        public var description: String {
            if let reason { return reason }
            let folder = (path as NSString).deletingLastPathComponent
            return "a switchboard server is running on the data folder \(folder)\(holder.map { " (pid \($0))" } ?? ""); stop it first"
        }
    }
}
