import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One HTTP exchange over a fresh loopback connection, with plain sockets so that any
/// bytes, well-formed or not, reach the server as they are.
struct LoopbackExchange {
    /// What came back: everything the server wrote before it closed or the time ran out.
    struct Outcome {
        var bytes: [UInt8]
        /// The server closed the connection, or sent a whole answer (as opposed to the
        /// time running out).
        var finished: Bool
    }

    let port: UInt16

    /// Sends `request` and reads until the server closes or `patience` seconds pass.
    /// The sending side is closed after `halfCloseAfter` seconds when given (0: at once),
    /// which tells the server the client has left: it ends a parked poll that way.
    func exchange(_ request: [UInt8], patience: Double, halfCloseAfter: Double? = nil) -> Outcome {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return Outcome(bytes: [], finished: false) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else { return Outcome(bytes: [], finished: false) }
        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { break }
            sent += count
        }
        let start = Self.now()
        var halfCloseAt = halfCloseAfter.map { start + $0 }
        let deadline = start + patience
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let now = Self.now()
            if let at = halfCloseAt, now >= at {
                shutdown(fd, Int32(SHUT_WR))
                halfCloseAt = nil
            }
            let wake = min(deadline, halfCloseAt ?? deadline)
            guard now < deadline else { return Outcome(bytes: received, finished: false) }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(max(1, (wake - now) * 1000)))
            if ready == 0 { continue }
            guard ready > 0 else { return Outcome(bytes: received, finished: false) }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return Outcome(bytes: received, finished: true) }
            received += buffer[..<count]
            if HTTPAnswer.isComplete(received) { return Outcome(bytes: received, finished: true) }
        }
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
