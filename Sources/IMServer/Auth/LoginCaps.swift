import IMProtocol
import IMStore

/// What kind of credential a login is. Each kind has its own cap on how many one account
/// may hold at once (`LoginCaps`); a kind may also be exempt.
public enum CredentialKind: String, Sendable, Hashable, CaseIterable {
    /// A person's login (`POST /v1/login`, registration, a password change); it expires.
    case person
    /// A bot account's login; it does not expire, so without a cap every start of a
    /// runner that logs in afresh would leave one more behind.
    case bot

    /// The kind of a login of `account`.
    init(of token: TokenRecord, account: UserRecord) {
        self = account.user.isBot ? .bot : .person
    }
}

/// How many live logins one account may hold, per kind of credential: when a new login
/// passes its kind's cap, the oldest live logins of that kind end (`401`, reason
/// `too_many_logins`), so that nobody can pile up logins (each a cached session, a row,
/// a revocation to apply) without bound. A kind without a cap is exempt.
public struct LoginCaps: Sendable {
    /// The cap of each kind; a kind missing here is not capped.
    public var caps: [CredentialKind: Int] = [.person: 64, .bot: 16]

    public init() {}

    /// The cap of `kind`, or nil when it is exempt.
    public func cap(for kind: CredentialKind) -> Int? { caps[kind] }
}

extension ServerServices {
    /// Ends the oldest live logins of `account` past the cap of the new login's kind; the
    /// new login (the newest) is always kept. Their cached sessions go at once, their
    /// parked polls are answered with a `kicked_out` event, and their next request with
    /// `401 too_many_logins`.
    func capLogins(of account: UserRecord, newest token: TokenRecord) async throws {
        let kind = CredentialKind(of: token, account: account)
        guard let cap = configuration.loginCaps.cap(for: kind) else { return }
        let live = try await store.liveTokens(of: account.id, at: now())
            .filter { CredentialKind(of: $0, account: account) == kind }
        // Newest first: what lies past the cap is the oldest.
        let ended = live.filter { $0.id != token.id }.dropFirst(max(cap - 1, 0))
        guard !ended.isEmpty else { return }
        for old in ended {
            try await store.revokeToken(id: old.id, reason: "too_many_logins")
        }
        authenticator.invalidate(tokenIDs: Set(ended.map(\.id)))
        let message = Authenticator.revoked(reason: "too_many_logins", device: nil).message
        for old in ended { hub.kick(tokenID: old.id, reason: message) }
    }
}
