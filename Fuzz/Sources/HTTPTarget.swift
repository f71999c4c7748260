import Foundation
import IMProtocol

/// The server's HTTP surface, end to end in this process: the HTTP library's parsing, the
/// router, logins and budgets, body decoding and every handler.
///
/// The input's first byte says who sends the request (bits 0-1: nobody, a person, an
/// administrator, a bot) and how (bit 2 set: the bytes exactly as they are; clear: the
/// request line, headers and body re-framed with a correct `Content-Length`, the
/// caller's token and `Connection: close`, so that mutations reach the handlers rather
/// than the framing). `@CURSOR@` becomes the person's current feed cursor.
///
/// Invariants: no answer is a 5xx (but 505 to another HTTP version); every error the API produces is the error envelope
/// with the code its status stands for; a success with a JSON body is JSON; the server
/// answers a re-framed request or closes within 10 seconds (a parked poll is ended by
/// closing the sending side after 0.3 s); the server never stops (a crash ends this
/// process).
final class HTTPTarget: FuzzTarget {
    private var server: FuzzedServer
    private let observations = Observations()

    init() throws {
        server = try FuzzedServer()
    }

    func run(_ input: [UInt8]) {
        guard let flags = input.first else { return }
        let caller = FuzzedServer.Caller(rawValue: Int(flags & 3)) ?? .anonymous
        let raw = (flags & 4) != 0
        let text = Self.replacing(Array("@CURSOR@".utf8), with: Array(server.cursor.utf8), in: Array(input.dropFirst()))
        let token = server.tokens[caller]
        let request = raw ? text : Self.frame(text, token: token)
        // Raw bytes may leave a request unfinished, or a keep-alive connection open after
        // an answer without a length: only re-framed requests must finish.
        let outcome = server.exchange.exchange(request, patience: raw ? 2 : 10, halfCloseAfter: raw ? 0 : 0.3)
        require(raw || outcome.finished, "no answer and no close within 10 s to: \(Self.show(request))")
        guard let answer = HTTPAnswer(outcome.bytes) else {
            if !raw, !outcome.bytes.isEmpty { observations.note("an answer that is not HTTP", Self.show(outcome.bytes)) }
            return
        }
        // 505 is the HTTP library's answer to a request line with another version: right.
        require(answer.status < 500 || answer.status == 505, "\(answer.status) to: \(Self.show(request))\nanswer: \(Self.show(outcome.bytes))")
        if answer.status >= 400 {
            if let envelope = try? WireJSON.decoder().decode(ErrorEnvelope.self, from: Data(answer.body)) {
                require(envelope.error.code.httpStatus == answer.status,
                        "status \(answer.status) with code \(envelope.error.code) to: \(Self.show(request))")
            } else if !request.starts(with: Array("HEAD ".utf8)) {
                observations.note("status \(answer.status) without the error envelope", Self.show(outcome.bytes))
            }
        } else if answer.header("Content-Type") == "application/json", !answer.body.isEmpty {
            require((try? JSONSerialization.jsonObject(with: Data(answer.body), options: [.fragmentsAllowed])) != nil,
                    "a \(answer.status) whose body is not JSON: \(Self.show(outcome.bytes))")
        }
        // A request may have ended one of the logins (logout, password change, a new login
        // with the same device name, a lock-out): start again on a fresh server.
        if (200..<300).contains(answer.status) || answer.status == 429, !server.loginsWork {
            server.stop()
            do {
                server = try FuzzedServer()
            } catch {
                require(false, "the server did not start again: \(error)")
            }
        }
    }

    /// The request line and headers of `raw` (up to the first blank line; all of it when
    /// there is none) with the framing headers replaced, then the rest as the body.
    static func frame(_ raw: [UInt8], token: String?) -> [UInt8] {
        let blank: [UInt8] = [13, 10, 13, 10]
        let (head, body) = raw.firstRange(of: blank).map { (raw[..<$0.lowerBound], raw[$0.upperBound...]) }
            ?? (raw[...], [])
        var lines = head.split(separator: 10, omittingEmptySubsequences: false).map { line in
            line.last == 13 ? line.dropLast() : line
        }
        let requestLine = lines.isEmpty ? [] : lines.removeFirst()
        let replaced = ["content-length:", "transfer-encoding:", "connection:", "host:", "authorization:"]
        var out = Array(requestLine) + [13, 10] + Array("Host: 127.0.0.1\r\n".utf8)
        for line in lines where !line.isEmpty {
            let lower = String(decoding: line.prefix(20), as: UTF8.self).lowercased()
            if replaced.contains(where: { lower.hasPrefix($0) }) { continue }
            out += line + [13, 10]
        }
        if let token { out += Array("Authorization: Bearer \(token)\r\n".utf8) }
        out += Array("Connection: close\r\nContent-Length: \(body.count)\r\n\r\n".utf8)
        return out + body
    }

    static func replacing(_ pattern: [UInt8], with replacement: [UInt8], in bytes: [UInt8]) -> [UInt8] {
        guard bytes.firstRange(of: pattern) != nil else { return bytes }
        var out: [UInt8] = []
        var rest = bytes[...]
        while let range = rest.firstRange(of: pattern) {
            out += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return out + rest
    }

    /// Bytes for a report: text, with other bytes escaped, cut at 2,000 characters.
    static func show(_ bytes: [UInt8]) -> String {
        String(String(decoding: bytes, as: UTF8.self).debugDescription.prefix(2000))
    }
}

/// What the target sees that is worth a look but is not a broken invariant (an error
/// that is not the envelope, made by the HTTP library itself): printed once per kind with
/// an example, and counted.
final class Observations {
    private var counts: [String: Int] = [:]

    func note(_ kind: String, _ example: String) {
        counts[kind, default: 0] += 1
        if counts[kind] == 1 {
            FileHandle.standardError.write(Data("observation: \(kind), e.g.: \(example)\n".utf8))
        }
    }
}
