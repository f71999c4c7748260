import BenchSupport
import CMicroHTTPD
import Foundation

/// Many keep-alive HTTP/1.1 connections to the server, driven from one epoll loop on the
/// calling thread, with each answer stamped on CLOCK_MONOTONIC the moment its last byte
/// is read.
///
/// Deliberately not the project's client (`IMClient`/libcurl): the aim is measured from
/// outside, by a client that adds as little of its own as it can: a request is bytes
/// written once, an answer is read until its `Content-Length` is complete (the server
/// always sends one), and nothing is decoded until the measurement is over.
final class RawClient {
    struct Answer {
        var connection: Int
        var status: Int
        var body: [UInt8]
        /// CLOCK_MONOTONIC seconds.
        var arrived: Double
    }

    private let port: Int
    private let epoll: Int32
    private var sockets: [Int32] = []
    private var buffers: [[UInt8]] = []
    private var chunk = [UInt8](repeating: 0, count: 64 * 1024)

    init(port: Int) throws {
        self.port = port
        epoll = sb_epoll_create()
        guard epoll >= 0 else { throw BenchError("epoll_create: \(String(cString: strerror(errno)))") }
    }

    deinit {
        for socket in sockets where socket >= 0 { close(socket) }
        close(epoll)
    }

    /// Opens `count` more connections; returns their numbers.
    func open(_ count: Int) throws -> Range<Int> {
        let first = sockets.count
        for _ in 0..<count {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw BenchError("socket: \(String(cString: strerror(errno)))") }
            var address = ChildProcess.loopback(port: port)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 else {
                close(fd)
                throw BenchError("connect to port \(port): \(String(cString: strerror(errno)))")
            }
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            guard sb_epoll_watch_readable(epoll, fd, UInt64(sockets.count)) == 0 else {
                throw BenchError("epoll_ctl: \(String(cString: strerror(errno)))")
            }
            sockets.append(fd)
            buffers.append([])
        }
        return first..<sockets.count
    }

    /// Stops watching `connection` and closes it (its number stays taken).
    func drop(_ connection: Int) {
        guard sockets[connection] >= 0 else { return }
        _ = sb_epoll_forget(epoll, sockets[connection])
        close(sockets[connection])
        sockets[connection] = -1
    }

    /// Writes a whole request (small: the socket's buffer takes it at once, or soon).
    func send(_ request: [UInt8], on connection: Int) throws {
        var written = 0
        while written < request.count {
            let count = request.withUnsafeBytes { write(sockets[connection], $0.baseAddress! + written, request.count - written) }
            if count > 0 {
                written += count
            } else if count < 0 && errno != EAGAIN && errno != EINTR {
                throw BenchError("write: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Waits up to `timeout` milliseconds for data and hands over every answer completed.
    func pump(timeout: Int32, _ handle: (Answer) throws -> Void) throws {
        try pump(seconds: timeout < 0 ? -1 : Double(timeout) / 1000, handle)
    }

    /// Reads what has come, waiting up to `seconds` (negative: until something comes)
    /// with a timeout finer than a millisecond, so that a client sending on a schedule
    /// sleeps between sends instead of polling (a spinning client took one of the two
    /// cores from the server and showed up as the server's tail latency).
    func pump(seconds: Double, _ handle: (Answer) throws -> Void) throws {
        var tokens = [UInt64](repeating: 0, count: 64)
        let nanoseconds = seconds < 0 ? -1 : Int64(seconds * 1e9)
        let ready = tokens.withUnsafeMutableBufferPointer { sb_epoll_wait_tokens_ns(epoll, $0.baseAddress, 64, nanoseconds) }
        if ready < 0 && errno != EINTR { throw BenchError("epoll_wait: \(String(cString: strerror(errno)))") }
        for token in tokens.prefix(max(0, Int(ready))) {
            let connection = Int(token)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(sockets[connection], $0.baseAddress, $0.count) }
                if count > 0 {
                    buffers[connection].append(contentsOf: chunk[0..<count])
                    if count < chunk.count { break }
                } else if count == 0 {
                    let left = String(decoding: buffers[connection].prefix(300), as: UTF8.self)
                    throw BenchError("the server closed connection \(connection)" + (left.isEmpty ? "" : " after: \(left)"))
                } else {
                    if errno == EAGAIN || errno == EINTR { break }
                    throw BenchError("read: \(String(cString: strerror(errno)))")
                }
            }
            let now = Machine.monotonicSeconds()
            while let (status, body) = Self.takeAnswer(&buffers[connection]) {
                try handle(Answer(connection: connection, status: status, body: body, arrived: now))
            }
        }
    }

    /// Pumps until `count` answers have come, or gives up after `seconds`.
    func collect(_ count: Int, seconds: Double = 120) throws -> [Answer] {
        var answers: [Answer] = []
        let deadline = Machine.monotonicSeconds() + seconds
        while answers.count < count {
            guard Machine.monotonicSeconds() < deadline else {
                throw BenchError("only \(answers.count) of \(count) answers came within \(Int(seconds)) s")
            }
            try pump(timeout: 100) { answers.append($0) }
        }
        return answers
    }

    /// One complete answer off the front of `buffer`, or nil while it is incomplete.
    private static func takeAnswer(_ buffer: inout [UInt8]) -> (Int, [UInt8])? {
        guard let headerEnd = find([13, 10, 13, 10], in: buffer) else { return nil }
        let head = String(decoding: buffer[0..<headerEnd], as: UTF8.self)
        let lines = head.split(separator: "\r\n")
        let status = lines.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        let length = lines.dropFirst().compactMap { line -> Int? in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
            return Int(parts[1].trimmingCharacters(in: .whitespaces))
        }.first ?? 0
        let end = headerEnd + 4 + length
        guard buffer.count >= end else { return nil }
        let body = Array(buffer[(headerEnd + 4)..<end])
        buffer.removeSubrange(0..<end)
        return (status, body)
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int = 0) -> Int? {
        guard haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        var index = start
        while index <= haystack.count - needle.count {
            if haystack[index] == needle[0] && haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    /// A request's bytes.
    static func request(_ method: String, _ path: String, token: String, body: String? = nil) -> [UInt8] {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n"
        if let body {
            text += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        } else {
            text += "\r\n"
        }
        return Array(text.utf8)
    }

    /// The `cursor` of a poll's answer (the server writes it first: `{"cursor":"…"`).
    static func cursor(of body: [UInt8]) -> String? {
        let key = Array(#""cursor":""#.utf8)
        guard let start = find(key, in: body) else { return nil }
        let from = start + key.count
        guard let end = body[from...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        return String(decoding: body[from..<end], as: UTF8.self)
    }
}
