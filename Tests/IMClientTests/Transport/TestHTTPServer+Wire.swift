import Foundation

/// HTTP/1.1 framing for the test server: just enough to read what libcurl sends.
extension TestHTTPServer.Loop {
    /// Takes one complete request off the front of `input`, or returns nil if more bytes are needed.
    static func parse(_ input: inout [UInt8]) -> TestHTTPServer.ReceivedRequest? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard input.count >= 4,
              let headEnd = (0...(input.count - 4)).first(where: { input[$0..<($0 + 4)].elementsEqual(separator) })
        else { return nil }
        let head = String(decoding: input[0..<headEnd], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]),
                            line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        let length = headers.first { $0.name.lowercased() == "content-length" }.flatMap { Int($0.value) } ?? 0
        let bodyStart = headEnd + 4
        guard input.count >= bodyStart + length else { return nil }
        let body = Data(input[bodyStart..<(bodyStart + length)])
        input.removeFirst(bodyStart + length)
        return TestHTTPServer.ReceivedRequest(
            method: requestLine.first.map(String.init) ?? "",
            path: requestLine.count > 1 ? String(requestLine[1]) : "",
            headers: headers, body: body)
    }

    /// The reply's bytes; the answer to a HEAD request announces the body but leaves it out.
    static func serialize(_ reply: TestHTTPServer.Reply, close: Bool, head isHead: Bool = false) -> [UInt8] {
        var head = "HTTP/1.1 \(reply.status) \(reason(reply.status))\r\n"
        for (name, value) in reply.headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(reply.body.count)\r\n"
        if close { head += "Connection: close\r\n" }
        return Array((head + "\r\n").utf8) + (isHead ? [] : Array(reply.body))
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 404: "Not Found"
        case 429: "Too Many Requests"
        default: "Status"
        }
    }
}
