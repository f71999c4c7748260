import Foundation

/// An HTTP/1.1 answer as read off the socket: status, header lines and body.
struct HTTPAnswer {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: ArraySlice<UInt8>

    /// Parses the first answer in `bytes`; nil when they hold no complete status line and
    /// header block.
    init?(_ bytes: [UInt8]) {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = bytes.firstRange(of: separator) else { return nil }
        let head = String(decoding: bytes[..<end.lowerBound], as: UTF8.self)
        let lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusLine = lines[0].split(separator: " ", maxSplits: 2)
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]) else { return nil }
        self.status = status
        let headers: [(name: String, value: String)] = lines.dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        self.headers = headers
        var body = bytes[end.upperBound...]
        let length = headers.first { $0.name.lowercased() == "content-length" }.flatMap { Int($0.value) }
        if let length, length <= body.count {
            body = body.prefix(length)
        }
        self.body = body
    }

    /// Whether `bytes` hold a whole answer: headers, and as much body as `Content-Length`
    /// says (a keep-alive connection stays open after it).
    static func isComplete(_ bytes: [UInt8]) -> Bool {
        guard let answer = HTTPAnswer(bytes) else { return false }
        if answer.status == 204 || answer.status == 304 { return true }
        guard let length = answer.header("Content-Length").flatMap(Int.init) else { return false }
        return answer.body.count >= length
    }

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}
