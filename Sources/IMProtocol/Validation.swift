/// Limits and name rules shared by the server (which enforces them) and clients (which
/// can check early and show the same message).
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
    public static let deviceLength = 1...64
    public static let attrsCount = 32
    public static let attrKeyLength = 1...64
    public static let attrValueLength = 0...1024
    public static let avatarBytes = 2 * 1024 * 1024
    public static let namesPerLookup = 100
    public static let pageSize = 1...200
    public static let eventsPerPoll = 1...1000
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

    /// Free text shown to people: a length in characters and no control characters (C0,
    /// DEL and C1) other than newline, carriage return and tab (when `multiline`).
    public static func text(
        _ value: String, field: String, length: ClosedRange<Int>, multiline: Bool = false
    ) throws {
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
