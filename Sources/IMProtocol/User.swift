/// A user's public profile.
public struct User: Codable, Sendable, Hashable, Identifiable {
    public var id: UserID
    public var username: String
    public var nickname: String
    /// An http(s) URL, or `/v1/media/<id>` for an uploaded avatar; empty when none.
    public var avatarURL: String
    /// The seed's "showInfo": a short line about the user.
    public var signature: String
    /// Free-form profile fields.
    public var attrs: [String: String]
    public var isBot: Bool
    public var createdAt: Timestamp

    public init(
        id: UserID, username: String, nickname: String, avatarURL: String = "",
        signature: String = "", attrs: [String: String] = [:], isBot: Bool = false,
        createdAt: Timestamp
    ) {
        self.id = id
        self.username = username
        self.nickname = nickname
        self.avatarURL = avatarURL
        self.signature = signature
        self.attrs = attrs
        self.isBot = isBot
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, username, nickname, signature, attrs
        case avatarURL = "avatar_url"
        case isBot = "is_bot"
        case createdAt = "created_at"
    }
}

/// `PATCH /v1/me`: only the fields present change.
public struct ProfileUpdate: Codable, Sendable, Hashable {
    public var nickname: String?
    public var avatarURL: String?
    public var signature: String?
    public var attrs: [String: String]?

    public init(
        nickname: String? = nil, avatarURL: String? = nil, signature: String? = nil,
        attrs: [String: String]? = nil
    ) {
        self.nickname = nickname
        self.avatarURL = avatarURL
        self.signature = signature
        self.attrs = attrs
    }

    enum CodingKeys: String, CodingKey {
        case nickname, signature, attrs
        case avatarURL = "avatar_url"
    }

    /// True when no field is given.
    public var isEmpty: Bool { nickname == nil && avatarURL == nil && signature == nil && attrs == nil }

    /// Throws the first field that breaks a rule.
    public func validate() throws {
        if let nickname { try Validate.nickname(nickname) }
        if let avatarURL { try Validate.url(avatarURL, field: "avatar_url") }
        if let signature {
            try Validate.text(signature, field: "signature", length: Limits.signatureLength)
        }
        if let attrs { try Validate.attrs(attrs) }
    }
}

/// `GET /v1/users?names=…`, `GET /v1/contacts`.
public struct UserList: Codable, Sendable, Hashable {
    public var users: [User]
    /// Names asked for that do not exist (batch lookup only).
    public var missing: [String]?

    public init(users: [User], missing: [String]? = nil) {
        self.users = users
        self.missing = missing
    }
}
