import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A numbered place in a home held by one process: an exclusive `flock` on
/// `<folder>/<name>-<n>.lock`, let go when the process ends (the kernel drops the lock
/// whatever way it ends) or `release` is called.
public final class HomeSlot: Sendable {
    /// 1 for the first process, 2 for a second one at the same time, and so on.
    public let number: Int
    private let fd: Int32

    private init(number: Int, fd: Int32) {
        self.number = number
        self.fd = fd
    }

    deinit { close(fd) }

    /// The first free place, up to `most`.
    static func claim(folder: String, name: String, most: Int) throws(IMClientError) -> HomeSlot {
        do {
            try FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw IMClientError(.localStorage, "cannot create \(folder): \(error.localizedDescription)")
        }
        for number in 1...max(1, most) {
            let path = "\(folder)/\(name)-\(number).lock"
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else {
                throw IMClientError(.localStorage, "cannot open \(path): \(String(cString: strerror(errno)))")
            }
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { return HomeSlot(number: number, fd: fd) }
            close(fd)
        }
        throw IMClientError(.localStorage, "\(most) programs already use \(folder): close one of them")
    }
}
