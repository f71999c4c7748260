import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Many raw connections held open at once from several loopback addresses, driven by one
/// thread: each is opened, sent a prefix, then sent one more byte every `interval` (a
/// trickle), while the thread watches which ones the server closes, and when.
///
/// With `reads` false the connections never read (slow readers): what the server writes
/// piles up in the sockets.
struct ConnectionSwarm: Sendable {
    var count: Int
    var sources: [String]
    var port: Int
    var prefix: [UInt8] = []
    /// Bytes sent one at a time after the prefix, one every `interval` seconds.
    var trickle: [UInt8] = []
    var interval: Double = 1
    var reads = true
    /// How long to hold them, in seconds.
    var duration: Double

    struct Outcome: Sendable {
        var opened = 0
        var failedToOpen = 0
        /// Seconds from opening to the server's close, for each one it closed.
        var closedAfter: [Double] = []
        var stillOpen = 0
        /// Status lines the server wrote, by status.
        var answers: [Int: Int] = [:]

        var summary: String {
            let closes = closedAfter.sorted()
            let spread = closes.isEmpty ? "" : String(format: " (after %.1f–%.1f s)", closes.first ?? 0, closes.last ?? 0)
            let statuses = answers.isEmpty ? "" : ", answers " + answers.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(separator: " ")
            return "\(opened) opened\(failedToOpen > 0 ? " (\(failedToOpen) refused)" : ""), \(closedAfter.count) closed by the server\(spread), \(stillOpen) still open at the end\(statuses)"
        }
    }

    /// Runs on its own thread; returns when `duration` is over (every connection closed).
    func run() async -> Outcome {
        await Threads.run { drive() }
    }

    private struct Connection {
        var fd: Int32
        var opened: Double
        var sent = 0
        var received: [UInt8] = []
        var open = true
    }

    private func drive() -> Outcome {
        var outcome = Outcome()
        var connections: [Connection] = []
        for index in 0..<count {
            guard let socket = try? RawSocket(from: sources[index % sources.count], to: port) else {
                outcome.failedToOpen += 1
                continue
            }
            _ = fcntl(socket.descriptor, F_SETFL, fcntl(socket.descriptor, F_GETFL) | O_NONBLOCK)
            if !prefix.isEmpty { _ = socket.send(prefix) }
            connections.append(Connection(fd: socket.descriptor, opened: Self.now()))
        }
        outcome.opened = connections.count
        let end = Self.now() + duration
        var nextTrickle = Self.now() + interval
        var pollers = [pollfd]()
        while Self.now() < end {
            pollers = connections.map {
                pollfd(fd: $0.open ? $0.fd : -1, events: Int16(reads ? POLLIN : 0) | Self.readHangup, revents: 0)
            }
            let wait = max(1, Int32((min(nextTrickle, end) - Self.now()) * 1000))
            _ = poll(&pollers, nfds_t(pollers.count), wait)
            let now = Self.now()
            for (index, poller) in pollers.enumerated() where connections[index].open && poller.revents != 0 {
                if reads, poller.revents & Int16(POLLIN) != 0 {
                    var buffer = [UInt8](repeating: 0, count: 16384)
                    let got = buffer.withUnsafeMutableBytes { recv(poller.fd, $0.baseAddress, $0.count, 0) }
                    if got > 0 {
                        if connections[index].received.count < 64 { connections[index].received += buffer[..<got] }
                        continue
                    }
                    if got < 0 && (errno == EAGAIN || errno == EINTR) { continue }
                }
                if poller.revents & (Self.readHangup | Int16(POLLHUP) | Int16(POLLERR)) != 0 || reads {
                    connections[index].open = false
                    outcome.closedAfter.append(now - connections[index].opened)
                    close(poller.fd)
                }
            }
            if now >= nextTrickle {
                nextTrickle = now + interval
                for index in connections.indices where connections[index].open && connections[index].sent < trickle.count {
                    var byte = trickle[connections[index].sent]
                    if Glibc.send(connections[index].fd, &byte, 1, Int32(MSG_NOSIGNAL)) == 1 { connections[index].sent += 1 }
                }
            }
        }
        for connection in connections {
            if let line = String(decoding: connection.received, as: UTF8.self).split(separator: " ").dropFirst().first,
               let status = Int(line) {
                outcome.answers[status, default: 0] += 1
            }
            if connection.open {
                outcome.stillOpen += 1
                close(connection.fd)
            }
        }
        return outcome
    }

    /// Linux's POLLRDHUP (the peer closed its side), which Swift's Glibc module leaves out.
    private static let readHangup: Int16 = 0x2000

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
