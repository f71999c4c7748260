/// `POST /v1/register`.
public struct RegisterRequest: Codable, Sendable, Hashable {
    public var username: String
    public var password: String
    public var nickname: String?
    /// Marks the account as a bot: its logins do not expire and rules can tell it apart.
    public var bot: Bool?
    public var device: String?

    public init(
        username: String, password: String, nickname: String? = nil, bot: Bool? = nil,
        device: String? = nil
    ) {
        self.username = username
        self.password = password
        self.nickname = nickname
        self.bot = bot
        self.device = device
    }
}

/// `POST /v1/login`.
public struct LoginRequest: Codable, Sendable, Hashable {
    public var username: String
    public var password: String
    /// A name for this client (e.g. `laptop`). A new login with the same device name
    /// ends the earlier one, whose event feed then receives `kicked_out`.
    public var device: String?

    public init(username: String, password: String, device: String? = nil) {
        self.username = username
        self.password = password
        self.device = device
    }
}

/// The answer to register and login.
public struct AuthResponse: Codable, Sendable, Hashable {
    public var user: User
    /// The bearer token; shown once, stored only hashed on the server.
    public var token: String
    /// When the token stops working; nil for bot accounts.
    public var expiresAt: Timestamp?

    public init(user: User, token: String, expiresAt: Timestamp?) {
        self.user = user
        self.token = token
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case user, token
        case expiresAt = "expires_at"
    }
}

/// `PUT /v1/me/password`.
public struct PasswordChange: Codable, Sendable, Hashable {
    public var oldPassword: String
    public var newPassword: String

    public init(oldPassword: String, newPassword: String) {
        self.oldPassword = oldPassword
        self.newPassword = newPassword
    }

    enum CodingKeys: String, CodingKey {
        case oldPassword = "old_password"
        case newPassword = "new_password"
    }
}

/// `PUT /v1/me/avatar` and other uploads: where the stored bytes are served.
public struct MediaInfo: Codable, Sendable, Hashable {
    public var id: String
    public var url: String
    public var contentType: String
    public var size: Int

    public init(id: String, url: String, contentType: String, size: Int) {
        self.id = id
        self.url = url
        self.contentType = contentType
        self.size = size
    }

    enum CodingKeys: String, CodingKey {
        case id, url, size
        case contentType = "content_type"
    }
}

/// The answer to `PUT /v1/me/avatar`: the stored image and the updated profile.
public struct AvatarUpload: Codable, Sendable, Hashable {
    public var user: User
    public var media: MediaInfo

    public init(user: User, media: MediaInfo) {
        self.user = user
        self.media = media
    }
}

/// `POST /v1/admin/users`: an account made by an administrator.
public struct AdminCreateUser: Codable, Sendable, Hashable {
    public var username: String
    public var password: String
    public var nickname: String?
    public var bot: Bool?
    public var admin: Bool?

    public init(username: String, password: String, nickname: String? = nil, bot: Bool? = nil, admin: Bool? = nil) {
        self.username = username
        self.password = password
        self.nickname = nickname
        self.bot = bot
        self.admin = admin
    }
}

/// `PUT /v1/admin/users/<name>/password`: ends every login of the account.
public struct AdminSetPassword: Codable, Sendable, Hashable {
    public var password: String
    public init(password: String) { self.password = password }
}

/// An account as administrators see it.
public struct AdminUser: Codable, Sendable, Hashable {
    public var user: User
    public var admin: Bool
    /// True while suspended (nil from servers that do not say).
    public var suspended: Bool?
    /// A bot's token for the Telegram Bot API (`<bot user id>:<secret>`), in the answer
    /// that made it only: when a bot account is created, or a token issued anew.
    public var telegramToken: String?

    public init(user: User, admin: Bool, suspended: Bool? = nil, telegramToken: String? = nil) {
        self.user = user
        self.admin = admin
        self.suspended = suspended
        self.telegramToken = telegramToken
    }

    enum CodingKeys: String, CodingKey {
        case user, admin, suspended
        case telegramToken = "telegram_token"
    }
}

/// One of the caller's logins, as `GET /v1/me/sessions` lists it.
public struct SessionInfo: Codable, Sendable, Hashable {
    /// Identifies the login for `DELETE /v1/me/sessions/<id>`.
    public var id: String
    /// The device name the login was made with, if any.
    public var device: String?
    public var createdAt: Timestamp
    /// When it was last used, to the minute or so; nil when never since it was made.
    public var lastUsedAt: Timestamp?
    /// When it stops working; nil for bot accounts.
    public var expiresAt: Timestamp?
    /// True for the login making this request.
    public var current: Bool

    public init(
        id: String, device: String?, createdAt: Timestamp, lastUsedAt: Timestamp?, expiresAt: Timestamp?, current: Bool
    ) {
        self.id = id
        self.device = device
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.expiresAt = expiresAt
        self.current = current
    }

    enum CodingKeys: String, CodingKey {
        case id, device, current
        case createdAt = "created_at"
        case lastUsedAt = "last_used_at"
        case expiresAt = "expires_at"
    }
}

/// `GET /v1/me/sessions`: the caller's live logins, newest first.
public struct SessionList: Codable, Sendable, Hashable {
    public var sessions: [SessionInfo]
    public init(sessions: [SessionInfo]) { self.sessions = sessions }
}

/// `GET /v1/admin/users`: one page of accounts in name order.
public struct AdminUserList: Codable, Sendable, Hashable {
    public var users: [AdminUser]
    /// Pass as `after` for the next page; nil on the last one.
    public var next: String?

    public init(users: [AdminUser], next: String?) {
        self.users = users
        self.next = next
    }
}
