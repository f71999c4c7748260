import IMProtocol
import IMStore

/// Who is making a request: the login behind a valid bearer token.
public struct Session: Sendable, Hashable {
    public var tokenID: Int64
    public var userID: UserID
    public var username: String
    public var isBot: Bool
    public var isAdmin: Bool
    public var device: String?
    public var expiresAt: Timestamp?
    /// The process-local administration credential (`IMServerApp.localAdministratorToken()`):
    /// an administrator for `/v1/admin` only, with no account behind it.
    public var isLocalAdministrator = false
    /// `Authenticator`'s revocation epoch when this session was checked.
    var checkedAt: UInt64 = 0

    /// The session of the local administration credential.
    static let localAdministrator = Session(
        tokenID: 0, userID: UserID(rawValue: 0), username: "local-administrator", isBot: false, isAdmin: true,
        device: "local", expiresAt: nil, isLocalAdministrator: true)
}

extension Session {
    /// The caller as group rules see them: an account, and whether it administers the server.
    var acting: ActingUser { ActingUser(id: userID, isServerAdministrator: isAdmin) }
}
