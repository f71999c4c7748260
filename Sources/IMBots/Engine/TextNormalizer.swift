import Foundation

/// A text's words laid out for phrase matching: bytes plus where words start and end.
struct TokenText: Sendable {
    /// The words' UTF-8, joined by one space (`words`) or by nothing (`normalized`).
    var bytes: [UInt8] = []
    /// Offsets where a word starts.
    var starts: [Int] = []
    /// `isEnd[i]` tells whether a word ends at offset `i`; one longer than `bytes`.
    var isEnd: [Bool] = [false]
}

/// Splits text into words and, for `normalize: true`, folds away the disguises spammers
/// use: case, accents, compatibility forms (full-width letters, ligatures), a few
/// look-alike letters from other scripts, invisible characters, and l33t digits.
///
/// Normalised words are concatenated without separators so that a phrase matches
/// however it is spaced (`f r e e  m0ney` is `free` + `money`), while matches still have
/// to start and end at word boundaries (`this cam` does not contain `scam`).
enum TextNormalizer {
    /// Words as written (lowered when asked), one space between them.
    static func words(_ text: String, lowercase: Bool) -> TokenText {
        let utf8 = Array(text.utf8)
        var builder = Builder(separated: true, capacity: utf8.count)
        if ByteText.isASCII(utf8) {
            for byte in utf8 {
                if ByteText.isASCIIAlphanumeric(byte) {
                    builder.append(lowercase && byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte)
                } else {
                    builder.endWord()
                }
            }
        } else {
            for scalar in text.unicodeScalars {
                let properties = scalar.properties
                if isMark(properties), builder.inWord {
                    builder.append(scalar)
                } else if isWordCharacter(properties) {
                    if lowercase {
                        for lowered in properties.lowercaseMapping.unicodeScalars { builder.append(lowered) }
                    } else {
                        builder.append(scalar)
                    }
                } else {
                    builder.endWord()
                }
            }
        }
        return builder.finish()
    }

    /// Normalised words, concatenated.
    static func normalized(_ text: String) -> TokenText {
        let utf8 = Array(text.utf8)
        var builder = Builder(separated: false, capacity: utf8.count)
        if ByteText.isASCII(utf8) {
            for byte in utf8 { appendNormalized(byte, to: &builder) }
        } else {
            for scalar in text.decomposedStringWithCompatibilityMapping.unicodeScalars {
                let properties = scalar.properties
                // Accents (combining marks) and invisible format characters vanish
                // without breaking the word they sit in.
                if isMark(properties) || properties.generalCategory == .format { continue }
                for lowered in properties.lowercaseMapping.unicodeScalars {
                    if lowered.isASCII {
                        appendNormalized(UInt8(lowered.value), to: &builder)
                    } else if let folded = foldedLetters[lowered] {
                        for byte in folded.utf8 { builder.append(byte) }
                    } else if isWordCharacter(lowered.properties) {
                        builder.append(lowered)
                    } else {
                        builder.endWord()
                    }
                }
            }
        }
        return builder.finish()
    }

    /// A phrase for `words` matching: its words, one space between them.
    static func phraseWords(_ phrase: String, lowercase: Bool) -> [UInt8] {
        words(phrase, lowercase: lowercase).bytes
    }

    /// A phrase for normalised matching: normalised, concatenated, and with `1` read as
    /// `i` (in the text, `1` stands for either `i` or `l`).
    static func normalizedPhrase(_ phrase: String) -> [UInt8] {
        normalized(phrase).bytes.map { $0 == ByteText.wildcardOne ? UInt8(ascii: "i") : $0 }
    }

    // MARK: Character classes

    private static func appendNormalized(_ byte: UInt8, to builder: inout Builder) {
        var byte = byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
        switch byte {
        case UInt8(ascii: "0"): byte = UInt8(ascii: "o")
        case UInt8(ascii: "3"): byte = UInt8(ascii: "e")
        case UInt8(ascii: "4"), UInt8(ascii: "@"): byte = UInt8(ascii: "a")
        case UInt8(ascii: "5"), UInt8(ascii: "$"): byte = UInt8(ascii: "s")
        case UInt8(ascii: "7"): byte = UInt8(ascii: "t")
        default: break
        }
        if ByteText.isASCIIAlphanumeric(byte) {
            builder.append(byte)
        } else {
            builder.endWord()
        }
    }

    private static func isWordCharacter(_ properties: Unicode.Scalar.Properties) -> Bool {
        properties.isAlphabetic || properties.numericType != nil
    }

    private static func isMark(_ properties: Unicode.Scalar.Properties) -> Bool {
        switch properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: true
        default: false
        }
    }

    /// Letters that have no decomposition but read as Latin ones: ligature-like letters
    /// and common look-alikes from Cyrillic and Greek.
    private static let foldedLetters: [Unicode.Scalar: String] = [
        "ß": "ss", "ø": "o", "đ": "d", "ð": "d", "ł": "l", "æ": "ae", "œ": "oe", "þ": "th",
        "ı": "i", "ħ": "h", "ŧ": "t",
        // Cyrillic
        "а": "a", "в": "b", "е": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p",
        "с": "c", "т": "t", "у": "y", "х": "x", "і": "i", "ј": "j", "ѕ": "s", "ԁ": "d", "һ": "h",
        // Greek
        "α": "a", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u",
    ]

    /// Accumulates words into a `TokenText`.
    private struct Builder {
        let separated: Bool
        var text = TokenText()
        var inWord = false
        var ends: [Int] = []

        init(separated: Bool, capacity: Int) {
            self.separated = separated
            text.bytes.reserveCapacity(capacity)
            text.starts.reserveCapacity(capacity / 4 + 1)
            ends.reserveCapacity(capacity / 4 + 1)
        }

        mutating func append(_ byte: UInt8) {
            if !inWord {
                if separated, !text.bytes.isEmpty { text.bytes.append(UInt8(ascii: " ")) }
                text.starts.append(text.bytes.count)
                inWord = true
            }
            text.bytes.append(byte)
        }

        mutating func append(_ scalar: Unicode.Scalar) {
            for byte in String(scalar).utf8 { append(byte) }
        }

        mutating func endWord() {
            guard inWord else { return }
            ends.append(text.bytes.count)
            inWord = false
        }

        mutating func finish() -> TokenText {
            endWord()
            text.isEnd = [Bool](repeating: false, count: text.bytes.count + 1)
            for end in ends { text.isEnd[end] = true }
            return text
        }
    }
}
