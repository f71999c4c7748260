import IMProtocol

/// A login kept on disk so command-line tools can reuse it.
public struct SavedLogin: Codable, Sendable, Hashable {
    /// The account.
    public var username: String
    /// The server the token belongs to.
    public var serverURL: String
    /// The bearer token of the login.
    public var token: String
    /// The device name the login was made with.
    public var device: String?
    /// When the login was saved.
    public var savedAt: Timestamp

    /// Creates a record of a login.
    public init(
        username: String, serverURL: String, token: String, device: String? = nil, savedAt: Timestamp = .now()
    ) {
        self.username = username
        self.serverURL = serverURL
        self.token = token
        self.device = device
        self.savedAt = savedAt
    }

    enum CodingKeys: String, CodingKey {
        case username, token, device
        case serverURL = "server_url"
        case savedAt = "saved_at"
    }
}
