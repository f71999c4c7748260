import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A response as the bytes on the wire said it.
public struct RawResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public var text: String { String(decoding: body, as: UTF8.self) }
}

public struct ClientError: Error, CustomStringConvertible {
    public var description: String
}

/// An HTTP client over a plain POSIX socket, so tests control every byte sent and see
/// every byte received. Blocking reads run on a thread of their own (never on the
/// cooperative pool, which the server's request tasks need).
///
/// `@unchecked Sendable`: a test uses one client from one task at a time; the buffer is
/// only touched by the thread doing the current read.
public final class RawHTTPClient: @unchecked Sendable {
    public let fd: Int32
    private var buffer: [UInt8] = []
    private var closed = false
    /// How long a read may wait before the test fails instead of hanging.
    public static let hangGuard: Double = 30

    /// Connects to `host:port`; from the loopback address `source` when given (127.0.0.2
    /// and up stand for other clients), with a small receive buffer when `receiveBuffer`
    /// is given (a reader that takes little at a time).
    public init(host: String = "127.0.0.1", port: Int, source: String? = nil, receiveBuffer: Int32? = nil) throws {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let info = found else {
            throw ClientError(description: "cannot resolve \(host)")
        }
        defer { freeaddrinfo(found) }
        fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else {
            closed = true
            throw ClientError(description: "socket: \(errno)")
        }
        if var size = receiveBuffer {
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            guard bound else {
                let code = errno
                // Closed here, and never again by `deinit`, which runs when this throws: a
                // second close could hit a descriptor another thread has been given since.
                closed = true
                Glibc.close(fd)
                throw ClientError(description: "bind to \(source): \(String(cString: strerror(code)))")
            }
        }
        guard connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            let code = errno
            closed = true  // as above
            Glibc.close(fd)
            throw ClientError(description: "connect to \(host):\(port): \(String(cString: strerror(code)))")
        }
    }

    deinit { close() }

    public func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
    }

    /// Closes with a TCP reset (SO_LINGER 0), as a client killed mid-request does.
    public func reset() {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        close()
    }

    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { raw in
                Glibc.send(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 {
                if errno == EINTR { continue }
                throw ClientError(description: "send: \(String(cString: strerror(errno)))")
            }
            offset += sent
        }
    }

    /// Reads one response; `head` says it answers a HEAD request (no body follows).
    public func response(head: Bool = false) async throws -> RawResponse {
        try await onThread { try self.readResponse(head: head) }
    }

    /// Reads one response on the calling thread (for a thread serving many clients).
    public static func blockingResponse(_ client: RawHTTPClient) throws -> RawResponse {
        try client.readResponse(head: false)
    }

    /// Waits until the server closes the connection; returns what arrived before.
    public func untilClosed() async throws -> [UInt8] {
        try await onThread {
            while try self.fill() {}
            defer { self.buffer.removeAll() }
            return self.buffer
        }
    }

    /// Reads until at least `count` bytes have arrived (or the stream ends); returns them.
    public func receive(atLeast count: Int) async throws -> [UInt8] {
        try await onThread {
            while self.buffer.count < count, try self.fill() {}
            return self.buffer
        }
    }

    // MARK: Blocking parts

    private func readResponse(head: Bool) throws -> RawResponse {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var headerEnd: Int?
        while headerEnd == nil {
            headerEnd = buffer.firstRange(of: separator)?.lowerBound
            if headerEnd == nil, try !fill() {
                throw ClientError(description: "connection closed before a response head "
                                  + "(got \(String(decoding: buffer, as: UTF8.self).debugDescription))")
            }
        }
        guard let headerEnd else { throw ClientError(description: "unreachable") }
        let headText = String(decoding: buffer[..<headerEnd], as: UTF8.self)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw ClientError(description: "bad status line in \(headText.debugDescription)")
        }
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]),
                    line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        buffer.removeFirst(headerEnd + separator.count)
        var response = RawResponse(status: status, headers: headers, body: [])
        let length = head ? 0 : Int(response.header("Content-Length") ?? "0") ?? 0
        while buffer.count < length {
            if try !fill() { throw ClientError(description: "connection closed inside a body") }
        }
        response.body = Array(buffer[..<length])
        buffer.removeFirst(length)
        return response
    }

    /// Reads what is available into the buffer; false at end of stream.
    private func fill() throws -> Bool {
        var pollFD = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&pollFD, 1, Int32(RawHTTPClient.hangGuard * 1000))
        if ready == 0 { throw ClientError(description: "no data from the server within the hang guard") }
        if ready < 0 { throw ClientError(description: "poll: \(errno)") }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count < 0 {
            if errno == ECONNRESET { return false }
            throw ClientError(description: "recv: \(String(cString: strerror(errno)))")
        }
        if count == 0 { return false }
        buffer.append(contentsOf: chunk[..<count])
        return true
    }
}

/// Runs blocking work on a new thread and awaits its result.
public func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.start()
    }
}

