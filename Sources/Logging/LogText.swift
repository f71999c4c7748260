/// How text goes into a log line so that it stays one line and reads as what it is.
///
/// Log lines carry text from outside (request paths, user names, error messages from
/// other programs); a newline in it would start a forged line, a carriage return or an
/// escape sequence would overwrite what a terminal shows, and a bidi control would
/// reorder it. So control characters (C0, DEL, C1), the Unicode line and paragraph
/// separators and the bidi controls are written as escapes: `\n`, `\r`, `\t`, and
/// `\u{1B}` for the others.
public enum LogText {
    /// `text` with every character that could break or disguise a line escaped.
    public static func escaped(_ text: String) -> String {
        // Most text has nothing to escape: one pass over the bytes decides.
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 >= 0xC2 }),
            text.unicodeScalars.contains(where: needsEscape)
        else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default: out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return out
    }

    /// A metadata value: escaped, and quoted (a `"` inside written `\"`) when it holds a
    /// blank or a quote, so that `key=value` pairs split unambiguously.
    public static func value(_ text: String) -> String {
        let escaped = escaped(text)
        guard escaped.utf8.contains(where: { $0 == 0x20 || $0 == 0x22 }) else { return escaped }
        var out = "\""
        for character in escaped {
            if character == "\"" { out += "\\" }
            out.append(character)
        }
        return out + "\""
    }

    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        // Line and paragraph separators.
        case 0x2028, 0x2029: true
        // Bidi marks, embeddings, overrides and isolates.
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x061C: true
        default: false
        }
    }
}
