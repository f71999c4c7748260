import Foundation
import IMProtocol
import IMStore
import Lifecycle
import Synchronization
import SwitchboardCrypto

/// Turns bearer tokens into sessions. Tokens are looked up by their SHA-256; recent
/// answers are cached for up to 30 s, and a revocation drops the entries it concerns at
/// once.
///
/// Every revocation goes through `apply(_:)`: this process's own (logout, kick, password
/// change, suspension) and, when several server nodes share a database, those another
/// node logged, which `catchUp` (the node's `RevocationWatch`) reads before every lookup.
/// `apply` drops the entries and raises the revocation epoch under the cache's lock. A lookup reads the epoch before it reads the
/// store and caches its answer only if the epoch is still the same, so a revocation that
/// commits while the lookup is in flight can never leave the revoked login cached (it
/// either is seen by the read, or raised the epoch before the insert). The epoch a
/// session was checked at also tells a parked poll whether it may still trust it
/// (`isStillValid`).
final class Authenticator: Sendable {
    /// What a revocation ends.
    enum Revocation: Sendable {
        case tokens(Set<Int64>)
        case user(UserID)
        /// Every cached login (the revocation log no longer reaches back far enough).
        case everything
    }

    private struct Cached {
        var session: Session
        var cachedAt: Double
        /// The epoch read before the lookup that produced it.
        var epoch: UInt64
    }

    private struct State {
        var entries: [[UInt8]: Cached] = [:]
        /// When each login was last used since the last `takeUsage()`, in wall milliseconds.
        var used: [Int64: Int64] = [:]
    }

    private let store: any TokenStore
    private let time: any TimeSource
    private let state = Mutex(State())
    private let cacheLifetime: Double = 30
    private let cacheCapacity = 100_000
    /// Raised by every revocation, under the state lock.
    private let revocations = Atomic<UInt64>(0)
    /// The SHA-256 of the process-local administration credential.
    private let localAdministratorKey: [UInt8]
    /// Where several nodes share the database: the revocations other nodes logged,
    /// applied before a login is trusted.
    private let remoteRevocations: RevocationWatch?
    /// Called with each batch of other nodes' revocations once applied here (the server
    /// wakes their parked polls).
    private let onRevoked: @Sendable (RevocationLog) -> Void

    init(
        store: any TokenStore, time: any TimeSource, localAdministratorToken: String = SecureRandom.token(),
        revocations: RevocationWatch? = nil, onRevoked: @escaping @Sendable (RevocationLog) -> Void = { _ in }
    ) {
        self.store = store
        self.time = time
        self.localAdministratorKey = Self.hash(localAdministratorToken)
        self.remoteRevocations = revocations
        self.onRevoked = onRevoked
    }

    /// Applies the revocations other nodes committed before this call (nothing to do on
    /// one node).
    func catchUpRevocations() async throws {
        guard let remoteRevocations else { return }
        try await remoteRevocations.catchUp { log in
            if !log.complete {
                apply(.everything)
            } else {
                if !log.tokens.isEmpty { apply(.tokens(Set(log.tokens))) }
                for user in log.users { apply(.user(user)) }
            }
            onRevoked(log)
        }
    }

    private func now() -> Timestamp { Timestamp(milliseconds: time.wallMilliseconds) }

    static func hash(_ token: String) -> [UInt8] { Digest.sha256(Array(token.utf8)) }

    /// The session for an `Authorization` header value, or a 401 saying why not.
    func authenticate(_ header: String?) async throws -> Session {
        guard let header, let token = Self.bearerToken(header) else { throw Self.missingToken }
        let key = Digest.sha256(Array(token.utf8))
        if Digest.constantTimeEqual(key, localAdministratorKey) { return .localAdministrator }
        try await catchUpRevocations()
        let clock = time.seconds
        let wall = time.wallMilliseconds
        let epoch = revocations.load(ordering: .acquiring)
        let hit = state.withLock { state -> Cached? in
            guard let hit = state.entries[key], clock - hit.cachedAt < cacheLifetime else { return nil }
            Self.recordUse(hit.session.tokenID, at: wall, in: &state)
            return hit
        }
        if let hit {
            try checkExpiry(hit.session)
            var session = hit.session
            session.checkedAt = epoch
            return session
        }
        guard let (record, user) = try await store.token(hash: key) else {
            throw APIError(.unauthorized, "invalid token: log in again", reason: "invalid")
        }
        if record.revokedAt != nil {
            throw Self.revoked(record)
        }
        if user.suspendedAt != nil {
            throw Self.suspended
        }
        var session = Session(
            tokenID: record.id, userID: user.id, username: user.user.username, isBot: user.user.isBot,
            isAdmin: user.isAdmin, device: record.device, expiresAt: record.expiresAt)
        try checkExpiry(session)
        state.withLock { state in
            Self.recordUse(record.id, at: wall, in: &state)
            // A revocation since the epoch was read may concern this login: not cached.
            guard revocations.load(ordering: .relaxed) == epoch else { return }
            if state.entries.count >= cacheCapacity { state.entries.removeAll(keepingCapacity: true) }
            state.entries[key] = Cached(session: session, cachedAt: clock, epoch: epoch)
        }
        session.checkedAt = epoch
        return session
    }

    /// True when no login was revoked since `session` was checked and it has not
    /// expired: then it is still valid, without hashing the token again.
    func isStillValid(_ session: Session) -> Bool {
        guard revocations.load(ordering: .acquiring) == session.checkedAt else { return false }
        if let expiresAt = session.expiresAt, expiresAt <= now() { return false }
        return true
    }

    /// The token of a `Bearer <token>` header value (scheme in any case, surrounding
    /// blanks dropped), or nil when it is not one.
    ///
    /// Read byte by byte: this runs on every request, and Foundation's trimming goes
    /// through NSString. Only values with non-ASCII bytes at either end take that path,
    /// so Unicode blanks are still trimmed as before.
    static func bearerToken(_ header: String) -> Substring? {
        let scheme = "bearer ".utf8
        let bytes = header.utf8
        guard let schemeEnd = bytes.index(bytes.startIndex, offsetBy: scheme.count, limitedBy: bytes.endIndex),
            schemeEnd < bytes.endIndex,
            zip(bytes[..<schemeEnd], scheme).allSatisfy({ $0 | 0x20 == $1 | 0x20 && ($1 == 0x20) == ($0 == 0x20) })
        else { return nil }
        var start = schemeEnd
        var end = bytes.endIndex
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start = bytes.index(after: start) }
        while start < end, bytes[bytes.index(before: end)] == 0x20 || bytes[bytes.index(before: end)] == 0x09 {
            end = bytes.index(before: end)
        }
        // Blanks only: an empty token, refused later as invalid (as any unknown token).
        guard start < end else { return header[start..<end] }
        if bytes[start] < 0x80, bytes[bytes.index(before: end)] < 0x80 {
            return header[start..<end]
        }
        return Substring(header[start..<end].trimmingCharacters(in: .whitespaces))
    }

    /// 401 for a request without a bearer token.
    static let missingToken = APIError(.unauthorized, "missing bearer token: send 'Authorization: Bearer <token>'")

    private func checkExpiry(_ session: Session) throws {
        if let expiresAt = session.expiresAt, expiresAt <= now() {
            throw APIError(.unauthorized, "this login expired: log in again", reason: "expired")
        }
    }

    static func revoked(_ record: TokenRecord) -> APIError {
        revoked(reason: record.revokedReason, device: record.device)
    }

    /// The 401 for a login revoked for `reason` (as the store records it).
    static func revoked(reason: String?, device: String?) -> APIError {
        switch reason {
        case "kicked_out":
            let device = device.map { " (device '\($0)')" } ?? ""
            return APIError(
                .unauthorized, "this login was ended because the account logged in elsewhere\(device)",
                reason: "kicked_out")
        case "password_changed":
            return APIError(.unauthorized, "the password was changed: log in again", reason: "password_changed")
        case "suspended":
            return suspended
        case "ended":
            return APIError(.unauthorized, "this login was ended from another one: log in again", reason: "ended")
        case "too_many_logins":
            return APIError(
                .unauthorized,
                "this login was ended because the account logged in more often than the server keeps logins "
                    + "(the oldest end first): log in again", reason: "too_many_logins")
        default:
            return APIError(.unauthorized, "this login has ended: log in again", reason: "logged_out")
        }
    }

    /// 401 for a login of a suspended account.
    static let suspended = APIError(
        .unauthorized, "this account is suspended: ask an administrator", reason: "suspended")

    /// Forgets the cached sessions a revocation ends and raises the epoch.
    func apply(_ revocation: Revocation) {
        state.withLock { state in
            switch revocation {
            case .tokens(let ids):
                state.entries = state.entries.filter { !ids.contains($0.value.session.tokenID) }
            case .user(let userID):
                state.entries = state.entries.filter { $0.value.session.userID != userID }
            case .everything:
                state.entries.removeAll()
            }
            revocations.add(1, ordering: .releasing)
        }
    }

    /// Forgets cached sessions of these tokens (after logout or a kick).
    func invalidate(tokenIDs: Set<Int64>) { apply(.tokens(tokenIDs)) }

    /// Forgets every cached session of one account (password change, suspension).
    func invalidate(userID: UserID) { apply(.user(userID)) }

    /// Bounded: usage is flushed every minute; past the bound (only without flushing) it
    /// starts over rather than grow.
    private static func recordUse(_ tokenID: Int64, at wall: Int64, in state: inout State) {
        if state.used.count >= 200_000, state.used[tokenID] == nil { state.used.removeAll(keepingCapacity: true) }
        state.used[tokenID] = wall
    }

    /// The logins used since the last call and when, in wall milliseconds; forgets them.
    func takeUsage() -> [Int64: Int64] {
        state.withLock { state in
            defer { state.used = [:] }
            return state.used
        }
    }

    /// When these logins were used since the last `takeUsage()`, where known.
    func recentUsage(of tokenIDs: [Int64]) -> [Int64: Int64] {
        state.withLock { state in
            var found: [Int64: Int64] = [:]
            for id in tokenIDs { if let used = state.used[id] { found[id] = used } }
            return found
        }
    }
}
