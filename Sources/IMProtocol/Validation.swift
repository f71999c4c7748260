/// Limits and name rules shared by the server (which enforces them) and clients (which
/// can check early and show the same message).
///
/// Text limits count characters (what people see) and, because one character can be any
/// number of combining marks, also UTF-8 bytes: at most `bytesPerCharacter` per allowed
/// character (`byteLimit(for:)`).
public enum Limits {
    public static let usernameLength = 1...32
    public static let conversationNameLength = 1...64
    public static let nicknameLength = 1...64
    public static let signatureLength = 0...256
    public static let descriptionLength = 0...1024
    public static let urlLength = 0...2048
    public static let passwordBytes = 8...1024
    public static let messageTextLength = 1...4096
    public static let clientMessageIDLength = 1...128
    /// Why a moderator acted (`ModerationRequest.reason`).
    public static let reasonLength = 1...256
    public static let deviceLength = 1...64
    public static let attrsCount = 32
    public static let attrKeyLength = 1...64
    public static let attrValueLength = 0...1024
    public static let avatarBytes = 2 * 1024 * 1024
    public static let namesPerLookup = 100
    public static let pageSize = 1...200
    public static let eventsPerPoll = 1...1000
    /// UTF-8 bytes a text field may hold per character it allows: room for emoji with a
    /// skin tone or a flag (8 bytes each) in every place.
    public static let bytesPerCharacter = 8
    /// The largest JSON body of one poll answer or one history page the server sends: it
    /// hands over fewer events or messages (at least one) rather than more bytes.
    public static let answerBytes = 1 << 20

    /// The UTF-8 byte limit of a text field allowing `length` characters.
    public static func byteLimit(for length: ClosedRange<Int>) -> Int {
        length.upperBound * bytesPerCharacter
    }
}

/// Checks of request fields; each throws an `APIError` naming the field.
public enum Validate {
    /// Account, group and room names: ASCII letters, digits, `.`, `_`, `-`, starting
    /// with a letter or digit. Names are case-insensitive and stored lowercase.
    public static func name(_ raw: String, field: String, length: ClosedRange<Int>) throws -> String {
        let name = raw.lowercased()
        guard length.contains(name.utf8.count) else {
            throw APIError.invalid(
                field, "\(field) must be \(length.lowerBound) to \(length.upperBound) characters long")
        }
        var first = true
        for byte in name.utf8 {
            let alnum = (byte >= 97 && byte <= 122) || (byte >= 48 && byte <= 57)
            let punct = byte == 46 || byte == 95 || byte == 45
            guard alnum || (punct && !first) else {
                throw APIError.invalid(
                    field,
                    "\(field) may contain only letters a-z, digits, '.', '_' and '-', and must start with a letter or digit")
            }
            first = false
        }
        return name
    }

    public static func username(_ raw: String) throws -> String {
        try name(raw, field: "username", length: Limits.usernameLength)
    }

    public static func conversationName(_ raw: String, field: String = "name") throws -> String {
        try name(raw, field: field, length: Limits.conversationNameLength)
    }

    /// Free text shown to people: a length in characters and in UTF-8 bytes
    /// (`Limits.byteLimit(for:)`), and no control characters (C0, DEL and C1) other than
    /// newline, carriage return and tab (when `multiline`).
    public static func text(
        _ value: String, field: String, length: ClosedRange<Int>, multiline: Bool = false
    ) throws {
        // Bytes first: counting characters walks every combining mark.
        let bytes = value.utf8.count
        let byteLimit = Limits.byteLimit(for: length)
        guard bytes <= byteLimit else {
            throw APIError.invalid(field, "\(field) must be at most \(byteLimit) bytes of UTF-8 (got \(bytes))")
        }
        let count = value.count
        guard length.contains(count) else {
            if count == 0 {
                throw APIError.invalid(field, "\(field) must not be empty")
            }
            throw APIError.invalid(
                field, "\(field) must be at most \(length.upperBound) characters (got \(count))")
        }
        if length.lowerBound > 0, value.allSatisfy(\.isWhitespace) {
            throw APIError.invalid(field, "\(field) must not be empty")
        }
        for scalar in value.unicodeScalars where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
            if multiline, scalar == "\n" || scalar == "\t" || scalar == "\r" { continue }
            throw APIError.invalid(field, "\(field) must not contain control characters")
        }
    }

    /// A name people are shown for someone or something (a nickname, a group's title):
    /// `text`, and no invisible or direction-changing characters, which let one name pass
    /// for another (`ali\u{200B}ce`, a right-to-left override that reverses what follows).
    public static func displayName(_ value: String, field: String, length: ClosedRange<Int> = Limits.nicknameLength)
        throws
    {
        try text(value, field: field, length: length)
        if let scalar = value.unicodeScalars.first(where: isInvisibleOrBidiControl) {
            let code = String(scalar.value, radix: 16, uppercase: true)
            let padded = String(repeating: "0", count: max(0, 4 - code.count)) + code
            throw APIError.invalid(
                field, "\(field) must not contain invisible or direction-changing characters (found U+\(padded))")
        }
    }

    /// A nickname: a display name of `Limits.nicknameLength`.
    public static func nickname(_ value: String) throws {
        try displayName(value, field: "nickname")
    }

    /// Bidirectional controls (embeddings, overrides, isolates, marks), zero-width and
    /// other invisible characters (joiners, fillers, tags) that render as nothing.
    static func isInvisibleOrBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00AD, 0x034F, 0x061C, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180E, 0x3164, 0xFEFF, 0xFFA0:
            true
        case 0x200B...0x200F, 0x202A...0x202E, 0x2060...0x2064, 0x2066...0x206F, 0xE0000...0xE007F:
            true
        default:
            false
        }
    }

    public static func password(_ value: String) throws {
        guard Limits.passwordBytes.contains(value.utf8.count) else {
            throw APIError.invalid(
                "password",
                "password must be \(Limits.passwordBytes.lowerBound) to \(Limits.passwordBytes.upperBound) bytes long")
        }
    }

    /// An http(s) URL, or a `/v1/media/...` path served by this server.
    public static func url(_ value: String, field: String) throws {
        try text(value, field: field, length: Limits.urlLength)
        if value.isEmpty { return }
        let lower = value.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://") || value.hasPrefix("/v1/media/")
        else {
            throw APIError.invalid(field, "\(field) must be an http(s) URL or a /v1/media/ path")
        }
    }

    public static func attrs(_ attrs: [String: String]) throws {
        guard attrs.count <= Limits.attrsCount else {
            throw APIError.invalid("attrs", "at most \(Limits.attrsCount) attrs are allowed")
        }
        for (key, value) in attrs {
            try text(key, field: "attrs", length: Limits.attrKeyLength)
            try text(value, field: "attrs.\(key)", length: Limits.attrValueLength, multiline: true)
        }
    }
}
