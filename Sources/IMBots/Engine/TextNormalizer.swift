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
/// use: case, accents and overlays (combining marks), compatibility forms (full-width,
/// mathematical, circled and squared letters, ligatures), regional-indicator and
/// enclosed letters, look-alike letters from other scripts, invisible characters (every
/// default-ignorable code point: zero-width spaces and joiners, soft hyphens, fillers,
/// variation selectors), l33t digits and signs (`0 1 3 4 5 7 8 9 @ $ € ¢ ¥ ₿`, and `!` or `|`
/// inside a word), apostrophes inside a word, and spacing and punctuation between letters.
/// Letters stretched by repetition (`scaaam`) are caught by the matchers
/// (`ByteText.matchEnds(_:at:_:wildcard:)`).
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
            for (index, byte) in utf8.enumerated() {
                let next = index + 1 < utf8.count ? utf8[index + 1] : nil
                appendNormalized(byte, next: next.map { ByteText.isASCIIAlphanumeric($0) } ?? false, to: &builder)
            }
        } else {
            var lowered: [Unicode.Scalar] = []
            lowered.reserveCapacity(utf8.count)
            for scalar in text.decomposedStringWithCompatibilityMapping.unicodeScalars {
                let properties = scalar.properties
                // Accents and overlays (combining marks), invisible format characters and
                // fillers vanish without breaking the word they sit in.
                if isMark(properties) || properties.generalCategory == .format || properties.isDefaultIgnorableCodePoint {
                    continue
                }
                if let letter = enclosedLetter(scalar) {
                    lowered.append(letter)
                    continue
                }
                lowered.append(contentsOf: properties.lowercaseMapping.unicodeScalars)
            }
            for (index, scalar) in lowered.enumerated() {
                if scalar.isASCII {
                    let next = index + 1 < lowered.count ? lowered[index + 1] : nil
                    let letterFollows = next.map { $0.isASCII ? ByteText.isASCIIAlphanumeric(UInt8($0.value))
                        : foldedLetters[$0] != nil || isWordCharacter($0.properties) } ?? false
                    appendNormalized(UInt8(scalar.value), next: letterFollows, to: &builder)
                } else if let folded = foldedLetters[scalar] {
                    for byte in folded.utf8 { builder.append(byte) }
                } else if scalar == "\u{2019}" || scalar == "\u{02BC}" {
                    // A typographic apostrophe, like `'`, keeps its word whole.
                    continue
                } else if isWordCharacter(scalar.properties) {
                    builder.append(scalar)
                } else {
                    builder.endWord()
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

    /// One ASCII character of normalised text; `letterFollows` tells whether a letter or
    /// digit comes next (`!` and `|` read as `i`/`l` only between letters, so `scam!`
    /// still ends with `scam`).
    private static func appendNormalized(_ byte: UInt8, next letterFollows: Bool, to builder: inout Builder) {
        var byte = byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
        switch byte {
        case UInt8(ascii: "0"): byte = UInt8(ascii: "o")
        case UInt8(ascii: "3"): byte = UInt8(ascii: "e")
        case UInt8(ascii: "4"), UInt8(ascii: "@"): byte = UInt8(ascii: "a")
        case UInt8(ascii: "5"), UInt8(ascii: "$"): byte = UInt8(ascii: "s")
        case UInt8(ascii: "7"): byte = UInt8(ascii: "t")
        case UInt8(ascii: "8"): byte = UInt8(ascii: "b")
        case UInt8(ascii: "9"): byte = UInt8(ascii: "g")
        case UInt8(ascii: "!"), UInt8(ascii: "|"):
            if builder.inWord && letterFollows { byte = ByteText.wildcardOne }
        case UInt8(ascii: "'"), UInt8(ascii: "`"):
            // `it's` is one word: an apostrophe does not split off an `s` that could
            // start a phrase.
            if builder.inWord && letterFollows { return }
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

    /// The Latin letter of a regional indicator (🇸), or of a negative circled or squared
    /// letter (🅢, 🆂), which have no decomposition.
    private static func enclosedLetter(_ scalar: Unicode.Scalar) -> Unicode.Scalar? {
        let value = scalar.value
        let bases: [ClosedRange<UInt32>] = [0x1F1E6...0x1F1FF, 0x1F150...0x1F169, 0x1F170...0x1F189]
        for range in bases where range.contains(value) {
            return Unicode.Scalar(UInt32(UInt8(ascii: "a")) + value - range.lowerBound)
        }
        return nil
    }

    /// Letters that have no decomposition but read as Latin ones: ligature-like letters,
    /// common look-alikes from Cyrillic and Greek, and currency signs used as letters.
    private static let foldedLetters: [Unicode.Scalar: String] = [
        "ß": "ss", "ø": "o", "đ": "d", "ð": "d", "ł": "l", "æ": "ae", "œ": "oe", "þ": "th",
        "ı": "i", "ħ": "h", "ŧ": "t", "€": "e", "¢": "c", "¥": "y", "₿": "b", "ɑ": "a", "ɡ": "g", "ʏ": "y",
        // Cyrillic
        "а": "a", "в": "b", "е": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p",
        "с": "c", "т": "t", "у": "y", "х": "x", "і": "i", "ј": "j", "ѕ": "s", "ԁ": "d", "һ": "h",
        "ԛ": "q", "ԝ": "w", "ё": "e", "ї": "i", "ɩ": "i",
        // Greek
        "α": "a", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u",
        "β": "b", "η": "n", "χ": "x", "ω": "w",
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
