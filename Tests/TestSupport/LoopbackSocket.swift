#if canImport(Glibc)
import Glibc
#endif

/// A TCP socket bound to 127.0.0.1 on a port the kernel chose, for tests that need a
/// port of their own: listening (a scripted server) or not (a port that refuses
/// connections, held so no other test can take it).
public struct LoopbackSocket: Sendable {
    public let descriptor: Int32
    public let port: Int

    /// Binds (and, with `backlog`, listens); the caller closes `descriptor`.
    public init(listenBacklog backlog: Int32? = nil, nonBlocking: Bool = false) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0), 0)
        guard fd >= 0 else { throw TestFailure("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(fd, raw, length) == 0 && (backlog.map { listen(fd, $0) == 0 } ?? true)
                    && getsockname(fd, raw, &length) == 0
            }
        }
        guard bound else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw TestFailure("bind/listen on 127.0.0.1: \(reason)")
        }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }
}
