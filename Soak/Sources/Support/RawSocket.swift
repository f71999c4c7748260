import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP connection to the server from a chosen loopback source address, with plain
/// sockets: for the abuse tests, which send what no HTTP client library would.
struct RawSocket: Sendable {
    let descriptor: Int32

    /// Connects from `source` (a loopback address such as 127.0.0.2) to 127.0.0.1:`port`.
    init(from source: String, to port: Int) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SoakFailure("socket: \(String(cString: strerror(errno)))") }
        func address(_ host: String, _ port: Int) -> sockaddr_in {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr(host)
            address.sin_port = UInt16(port).bigEndian
            return address
        }
        var local = address(source, 0)
        var remote = address("127.0.0.1", port)
        let ok = withUnsafePointer(to: &local) { localPointer in
            withUnsafePointer(to: &remote) { remotePointer in
                localPointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { l in
                    remotePointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { r in
                        bind(fd, l, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                            && connect(fd, r, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                    }
                }
            }
        }
        guard ok else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            throw SoakFailure("connect from \(source): \(reason)")
        }
        descriptor = fd
    }

    /// Sends all of `bytes` (or as much as the server takes before it closes); whether all went.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    /// Reads one answer: until its `Content-Length` is in, the server closes, or `patience` runs out.
    func readAnswer(patience: Double) -> RawAnswer? {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = Date().addingTimeInterval(patience)
        while Date() < deadline {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(max(1, deadline.timeIntervalSinceNow * 1000)))
            guard ready > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += buffer[..<count]
            if let answer = RawAnswer(received), answer.isComplete { return answer }
        }
        return RawAnswer(received)
    }

    func close() { Glibc.close(descriptor) }

    /// One request on a new connection from `source`: its answer, or nil when none came.
    static func exchange(from source: String, port: Int, _ request: [UInt8], patience: Double = 30) -> RawAnswer? {
        guard let socket = try? RawSocket(from: source, to: port) else { return nil }
        defer { socket.close() }
        guard socket.send(request) else { return socket.readAnswer(patience: 1) }
        return socket.readAnswer(patience: patience)
    }

    /// An HTTP/1.1 request's bytes.
    static func request(_ method: String, _ path: String, headers: [String] = [], body: [UInt8] = []) -> [UInt8] {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for header in headers { head += header + "\r\n" }
        if !body.isEmpty || method != "GET" { head += "Content-Length: \(body.count)\r\n" }
        return Array((head + "\r\n").utf8) + body
    }
}

/// An answer read off a raw socket.
struct RawAnswer: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]
    private var length: Int?

    init?(_ bytes: [UInt8]) {
        guard let end = bytes.firstRange(of: [13, 10, 13, 10]) else { return nil }
        let lines = String(decoding: bytes[..<end.lowerBound], as: UTF8.self).split(separator: "\r\n")
        let parts = lines.first?.split(separator: " ") ?? []
        guard parts.count >= 2, let status = Int(parts[1]) else { return nil }
        self.status = status
        headers = lines.dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        body = Array(bytes[end.upperBound...])
        length = headers.first { $0.name.lowercased() == "content-length" }.flatMap { Int($0.value) }
    }

    var isComplete: Bool { status == 204 || status == 304 || body.count >= (length ?? Int.max) }

    func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }

    /// `413 PAYLOAD_TOO_LARGE`, or `431 without the error envelope`.
    var summary: String {
        guard status >= 400 else { return "\(status)" }
        let code = (try? JSONDecoder().decode(Envelope.self, from: Data(body)))?.error.code
        return "\(status) \(code ?? "without the error envelope")"
    }

    var isEnvelope: Bool { (try? JSONDecoder().decode(Envelope.self, from: Data(body))) != nil }

    private struct Envelope: Decodable {
        struct Inner: Decodable { var code: String; var message: String }
        var error: Inner
    }
}
