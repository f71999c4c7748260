import Foundation
import IMProtocol

/// Reads the bodies of the busiest requests, a sent message (`{"text": …}`) and a read
/// marker (`{"seq": N}`), without Foundation's decoder, which builds a map of the
/// document and boxes every value first.
///
/// It handles the plain shapes only: for a message, one object whose keys are `text`,
/// `client_msg_id` and `reply_to`, each at most once, with string, null or (for
/// `reply_to`) whole-number values; for a read marker, one object with `seq` alone, a
/// whole number. Anything else (other keys, other value kinds, malformed or doubtful
/// input) returns nil, and the caller decodes with `JSONDecoder`, so every error, and
/// every answer, is exactly what the decoder gives (`WireReaderTests` compares the two).
struct WireReader {
    private let bytes: UnsafeRawBufferPointer
    private var index = 0

    private init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// The request, or nil when the decoder must read it.
    static func sendMessageRequest(_ data: Data) -> SendMessageRequest? {
        read(data) { $0.readSendMessageRequest() }
    }

    private mutating func readSendMessageRequest() -> SendMessageRequest? {
        skipBlanks()
        guard take(UInt8(ascii: "{")) else { return nil }
        var text: String?
        var clientMessageID: String??
        var replyTo: MessageID??
        skipBlanks()
        if !take(UInt8(ascii: "}")) {
            repeat {
                skipBlanks()
                guard let key = readKey() else { return nil }
                skipBlanks()
                guard take(UInt8(ascii: ":")) else { return nil }
                skipBlanks()
                switch key {
                case .text:
                    guard text == nil, let value = readString() else { return nil }
                    text = value
                case .clientMessageID:
                    guard clientMessageID == nil else { return nil }
                    if takeNull() {
                        clientMessageID = .some(nil)
                    } else {
                        guard let value = readString() else { return nil }
                        clientMessageID = value
                    }
                case .replyTo:
                    guard replyTo == nil else { return nil }
                    if takeNull() {
                        replyTo = .some(nil)
                    } else {
                        guard let value = readIdentifier() else { return nil }
                        replyTo = MessageID(rawValue: value)
                    }
                }
                skipBlanks()
            } while take(UInt8(ascii: ","))
            guard take(UInt8(ascii: "}")) else { return nil }
        }
        skipBlanks()
        guard index == bytes.count, let text else { return nil }
        return SendMessageRequest(text: text, clientMessageID: clientMessageID ?? nil, replyTo: replyTo ?? nil)
    }

    /// The marker, or nil when the decoder must read it.
    static func readMarker(_ data: Data) -> ReadMarker? {
        read(data) { $0.readReadMarker() }
    }

    /// `body` run by a reader over `data`'s bytes.
    private static func read<Value>(_ data: Data, _ body: (inout WireReader) -> Value?) -> Value? {
        data.withUnsafeBytes { buffer in
            var reader = WireReader(buffer)
            return body(&reader)
        }
    }

    private mutating func readReadMarker() -> ReadMarker? {
        skipBlanks()
        guard take(UInt8(ascii: "{")) else { return nil }
        skipBlanks()
        guard let key = readPlainKey(), key.elementsEqual("seq".utf8) else { return nil }
        skipBlanks()
        guard take(UInt8(ascii: ":")) else { return nil }
        skipBlanks()
        guard let seq = readDigits(), atNumberEnd else { return nil }
        skipBlanks()
        guard take(UInt8(ascii: "}")) else { return nil }
        skipBlanks()
        guard index == bytes.count else { return nil }
        return ReadMarker(seq: seq)
    }

    private enum Key { case text, clientMessageID, replyTo }

    /// One of the three keys, written without escapes; nil for anything else.
    private mutating func readKey() -> Key? {
        guard let key = readPlainKey() else { return nil }
        if key.elementsEqual("text".utf8) { return .text }
        if key.elementsEqual("client_msg_id".utf8) { return .clientMessageID }
        if key.elementsEqual("reply_to".utf8) { return .replyTo }
        return nil
    }

    /// A key written in printable ASCII without escapes; nil for anything else.
    private mutating func readPlainKey() -> UnsafeRawBufferPointer? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
            // Escaped or unusual keys go to the decoder.
            guard bytes[index] >= 0x20, bytes[index] != UInt8(ascii: "\\"), bytes[index] < 0x80 else { return nil }
            index += 1
        }
        guard index < bytes.count else { return nil }
        let key = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
        index += 1
        return key
    }

    /// A JSON string: the escapes JSON defines, valid UTF-8, no raw control characters.
    private mutating func readString() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        var plain = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { break }
            if byte < 0x20 { return nil }
            if byte == UInt8(ascii: "\\") {
                plain = false
                index += 2
            } else {
                index += 1
            }
        }
        guard index < bytes.count else { return nil }
        let raw = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
        index += 1
        if plain { return String(validating: raw, as: UTF8.self) }
        return Self.unescape(raw)
    }

    private static func unescape(_ raw: UnsafeRawBufferPointer) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var index = 0
        while index < raw.count {
            let byte = raw[index]
            guard byte == UInt8(ascii: "\\") else {
                out.append(byte)
                index += 1
                continue
            }
            guard index + 1 < raw.count else { return nil }
            let escaped = raw[index + 1]
            index += 2
            switch escaped {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escaped)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                guard let unit = hex4(raw, at: index) else { return nil }
                index += 4
                var scalar: Unicode.Scalar?
                if (0xD800...0xDBFF).contains(unit) {
                    // A high surrogate must be followed by an escaped low one.
                    guard index + 6 <= raw.count, raw[index] == UInt8(ascii: "\\"), raw[index + 1] == UInt8(ascii: "u"),
                        let low = hex4(raw, at: index + 2), (0xDC00...0xDFFF).contains(low)
                    else { return nil }
                    index += 6
                    scalar = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
                } else {
                    scalar = Unicode.Scalar(unit)
                }
                guard let scalar else { return nil }
                out.append(contentsOf: Array(String(Character(scalar)).utf8))
            default:
                return nil
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    private static func hex4(_ raw: UnsafeRawBufferPointer, at start: Int) -> UInt32? {
        guard start + 4 <= raw.count else { return nil }
        var value: UInt32 = 0
        for byte in raw[start..<start + 4] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// An identifier as a positive whole number or a string of one (what the protocol's
    /// identifiers decode from); nil for anything else, including leading zeros or signs.
    private mutating func readIdentifier() -> Int64? {
        let quoted = take(UInt8(ascii: "\""))
        guard let value = readDigits(), value > 0 else { return nil }
        if quoted { return take(UInt8(ascii: "\"")) ? value : nil }
        return atNumberEnd ? value : nil
    }

    /// A whole number's digits: at most 18, no sign and no leading zero (but `0` itself).
    private mutating func readDigits() -> Int64? {
        let start = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        let digits = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
        guard !digits.isEmpty, digits.count <= 18, digits.count == 1 || digits[0] != UInt8(ascii: "0") else { return nil }
        return digits.reduce(0) { $0 * 10 + Int64($1 - UInt8(ascii: "0")) }
    }

    /// Whether a bare number may end here: no fraction or exponent follows.
    private var atNumberEnd: Bool {
        index == bytes.count || bytes[index] == UInt8(ascii: ",") || bytes[index] == UInt8(ascii: "}")
            || Self.isBlank(bytes[index])
    }

    private mutating func takeNull() -> Bool {
        guard index + 4 <= bytes.count, UnsafeRawBufferPointer(rebasing: bytes[index..<index + 4]).elementsEqual("null".utf8)
        else { return false }
        index += 4
        return true
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipBlanks() {
        while index < bytes.count, Self.isBlank(bytes[index]) { index += 1 }
    }

    /// JSON's whitespace: space, tab, line feed, carriage return.
    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
