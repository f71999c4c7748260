/// Bytes from a terminal in raw mode → keys: UTF-8 text, control keys, the CSI and SS3
/// sequences of xterm-like terminals (arrows, Home/End, PgUp/PgDn, F1-F12, Delete,
/// Shift-Tab, Shift-Enter as `CSI 13;2u` or `CSI 27;2;13~`), Alt with a key (Esc and the
/// key together: Meta), SGR mouse wheel reports and bracketed paste.
///
/// A paste the terminal does not bracket is told from typing by what one `read` holds:
/// text after an Enter in the same read (no one types that fast) makes the whole read,
/// and every read after it until the input goes quiet, one `paste` whose Enters are
/// line breaks, so a pasted block is one message and is not sent line by line.
///
/// Pure: the reader thread feeds what `read` returned and calls `flush` when no more
/// bytes follow shortly, which turns a lone ESC into the Esc key and ends a paste.
public struct KeyDecoder: Sendable {
    private var pending: [UInt8] = []
    private var pasting: [UInt8]?
    /// An unbracketed paste is under way (until `flush`).
    private var pasteBurst = false
    /// The most bytes one paste keeps: a bound on memory, far above what the input line
    /// holds (which says so when a paste does not fit).
    static let pasteLimit = 1024 * 1024

    /// A decoder with nothing pending.
    public init() {}

    /// True when bytes wait for the rest of a sequence (the reader then polls briefly
    /// and calls `flush`).
    public var hasPending: Bool { !pending.isEmpty && pasting == nil }

    /// The keys completed by `bytes`.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [Key] {
        pending.append(contentsOf: bytes)
        var keys: [Key] = []
        var index = 0
        while index < pending.count {
            if pasting != nil {
                guard let end = Self.find(Self.pasteEnd, in: pending, from: index) else {
                    // Keep a possible start of the end marker for the next read.
                    let keep = min(Self.pasteEnd.count - 1, pending.count - index)
                    appendPaste(pending[index..<(pending.count - keep)])
                    index = pending.count - keep
                    break
                }
                appendPaste(pending[index..<end])
                keys.append(.paste(String(decoding: pasting ?? [], as: UTF8.self)))
                pasting = nil
                index = end + Self.pasteEnd.count
                continue
            }
            guard let (key, length) = decodeOne(from: index) else { break }
            index += length
            if let key { keys.append(key) }
        }
        pending.removeFirst(min(index, pending.count))
        return unbracketedPaste(keys)
    }

    /// `keys` of one read, with typed text that is really a paste joined into one.
    private mutating func unbracketedPaste(_ keys: [Key]) -> [Key] {
        if !pasteBurst {
            guard let enter = keys.firstIndex(of: .enter),
                keys[(enter + 1)...].contains(where: { if case .character = $0 { true } else { false } })
            else { return keys }
            pasteBurst = true
        }
        var result: [Key] = []
        var text = ""
        for key in keys {
            switch key {
            case .character(let character): text.append(character)
            case .enter, .newline: text.append("\n")
            case .tab: text.append("\t")
            case .paste(let pasted): text += pasted
            default:
                if !text.isEmpty { result.append(.paste(text)) }
                text = ""
                result.append(key)
            }
        }
        if !text.isEmpty { result.append(.paste(text)) }
        return result
    }

    /// Whatever is pending as keys of its own: a lone ESC becomes `escape`. The input
    /// went quiet: an unbracketed paste has ended.
    public mutating func flush() -> [Key] {
        pasteBurst = false
        guard pasting == nil, !pending.isEmpty else { return [] }
        var keys: [Key] = []
        if pending.first == 0x1B {
            keys.append(.escape)
            pending.removeFirst()
            keys += feed([])
        }
        pending.removeAll()  // an incomplete UTF-8 sequence or CSI: nothing to show
        return keys
    }

    private static let pasteEnd: [UInt8] = Array("\u{1B}[201~".utf8)

    private mutating func appendPaste(_ bytes: ArraySlice<UInt8>) {
        guard var buffer = pasting else { return }
        buffer.append(contentsOf: bytes.prefix(max(0, Self.pasteLimit - buffer.count)))
        pasting = buffer
    }

    /// Decodes one key at `start`: nil when more bytes are needed; a nil key for a
    /// sequence that means nothing here.
    private mutating func decodeOne(from start: Int) -> (Key?, Int)? {
        let byte = pending[start]
        switch byte {
        case 0x1B:
            return decodeEscape(from: start)
        case 0x0D:
            // CR LF (a paste from some terminals) is one line end.
            guard start + 1 < pending.count else { return (.enter, 1) }
            return (.enter, pending[start + 1] == 0x0A ? 2 : 1)
        case 0x0A: return (.enter, 1)
        case 0x09: return (.tab, 1)
        case 0x7F, 0x08: return (.backspace, 1)
        case 0x01...0x1A: return (.control(Character(Unicode.Scalar(byte + 0x60))), 1)
        case 0x00, 0x1C...0x1F: return (nil, 1)
        default:
            return decodeText(from: start)
        }
    }

    private func decodeText(from start: Int) -> (Key?, Int)? {
        let byte = pending[start]
        let length = byte < 0x80 ? 1 : byte >> 5 == 0b110 ? 2 : byte >> 4 == 0b1110 ? 3 : byte >> 3 == 0b11110 ? 4 : 0
        guard length > 0 else { return (nil, 1) }  // a stray continuation byte
        guard start + length <= pending.count else { return nil }
        let text = String(decoding: pending[start..<start + length], as: UTF8.self)
        guard let character = text.first, character != "\u{FFFD}" else { return (nil, length) }
        return (.character(character), length)
    }

    private mutating func decodeEscape(from start: Int) -> (Key?, Int)? {
        guard start + 1 < pending.count else { return nil }
        let next = pending[start + 1]
        switch next {
        case UInt8(ascii: "["):
            return decodeCSI(from: start)
        case UInt8(ascii: "O"):
            guard start + 2 < pending.count else { return nil }
            let key: Key? = switch pending[start + 2] {
            case UInt8(ascii: "P"): .function(1)
            case UInt8(ascii: "Q"): .function(2)
            case UInt8(ascii: "R"): .function(3)
            case UInt8(ascii: "S"): .function(4)
            case UInt8(ascii: "A"): .up
            case UInt8(ascii: "B"): .down
            case UInt8(ascii: "C"): .right
            case UInt8(ascii: "D"): .left
            case UInt8(ascii: "H"): .home
            case UInt8(ascii: "F"): .end
            case UInt8(ascii: "M"): .enter
            default: nil
            }
            return (key, 3)
        case 0x1B:
            return (.escape, 1)
        case 0x0D, 0x0A:
            return (.newline, 2)  // Alt-Enter
        case 0x7F, 0x08:
            return (.control("w"), 2)  // Alt-Backspace: the word before the caret
        case 0x20...0x7E:
            return (.alt(Character(Unicode.Scalar(next))), 2)
        default:
            return (.escape, 1)
        }
    }

    private mutating func decodeCSI(from start: Int) -> (Key?, Int)? {
        // ESC [ parameters (0x30-0x3F) intermediates (0x20-0x2F) final (0x40-0x7E)
        var index = start + 2
        while index < pending.count, (0x20...0x3F).contains(pending[index]) { index += 1 }
        guard index < pending.count else { return pending.count - start > 32 ? (nil, pending.count - start) : nil }
        let final = pending[index]
        let length = index - start + 1
        let parameters = String(decoding: pending[(start + 2)..<index], as: UTF8.self)
        if parameters.hasPrefix("<") {
            return (Self.mouse(parameters, final: final), length)
        }
        let numbers = parameters.split(separator: ";").map { Int($0) ?? 0 }
        let first = numbers.first ?? 0
        switch final {
        case UInt8(ascii: "u") where first == 13 && numbers.count > 1:
            return (.newline, length)  // Shift-Enter (or Alt-Enter) in the CSI u encoding
        case UInt8(ascii: "A"): return (.up, length)
        case UInt8(ascii: "B"): return (.down, length)
        case UInt8(ascii: "C"): return (.right, length)
        case UInt8(ascii: "D"): return (.left, length)
        case UInt8(ascii: "H"): return (.home, length)
        case UInt8(ascii: "F"): return (.end, length)
        case UInt8(ascii: "Z"): return (.backTab, length)
        case UInt8(ascii: "~"):
            if first == 200 {
                pasting = []
                return (nil, length)
            }
            if first == 27, numbers.count == 3, numbers[2] == 13, numbers[1] > 1 {
                return (.newline, length)  // Shift-Enter as xterm's modifyOtherKeys sends it
            }
            let key: Key? = switch first {
            case 1, 7: .home
            case 4, 8: .end
            case 3: .delete
            case 5: .pageUp
            case 6: .pageDown
            case 11...15: .function(first - 10)
            case 17...21: .function(first - 11)
            case 23, 24: .function(first - 12)
            default: nil
            }
            return (key, length)
        default:
            return (nil, length)
        }
    }

    /// `<b;x;yM`: only the wheel matters (buttons 64 and 65).
    private static func mouse(_ parameters: String, final: UInt8) -> Key? {
        guard final == UInt8(ascii: "M"), let button = parameters.dropFirst().split(separator: ";").first.flatMap({ Int($0) })
        else { return nil }
        switch button & ~0b11100 {  // without Shift, Alt and Ctrl
        case 64: return .wheelUp
        case 65: return .wheelDown
        default: return nil
        }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        for index in start...(haystack.count - needle.count) where haystack[index] == needle[0] {
            if Array(haystack[index..<index + needle.count]) == needle { return index }
        }
        return nil
    }
}
