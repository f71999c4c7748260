import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Loopback addresses and ports for the servers and the many-connection clients.
enum Loopback {
    /// A TCP port free on 127.0.0.1 right now, below the kernel's range for outgoing
    /// connections (32768 and up): while a killed server is down, a client retrying its
    /// connection could otherwise be given the server's port as its own and connect to
    /// itself, and the restarted server could not bind it.
    static func freePort() throws -> Int {
        for _ in 0..<1000 {
            let port = Int.random(in: 10_000..<32_768)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw SoakFailure("socket: \(String(cString: strerror(errno)))") }
            defer { close(fd) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = UInt16(port).bigEndian
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            if bound { return port }
        }
        throw SoakFailure("no free port on 127.0.0.1 below 32768")
    }

    /// `count` client addresses, 127.0.0.2 and up: clients that open many connections
    /// spread them over these, so per-address connection limits on the server do not
    /// turn the test into a test of that limit.
    static func clientAddresses(_ count: Int, from first: Int = 2) -> [String] {
        (first..<first + count).map { "127.0.\($0 / 256).\($0 % 256)" }
    }
}
