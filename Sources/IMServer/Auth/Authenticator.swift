import Foundation
import IMProtocol
import IMStore
import Lifecycle
import Synchronization
import SwitchboardCrypto

/// Who is making a request: the login behind a valid bearer token.
public struct Session: Sendable, Hashable {
    public var tokenID: Int64
    public var userID: UserID
    public var username: String
    public var isBot: Bool
    public var isAdmin: Bool
    public var device: String?
    public var expiresAt: Timestamp?
    /// `Authenticator.revocations` when this session was checked.
    var checkedAt: UInt64 = 0
}

/// Turns bearer tokens into sessions. Tokens are looked up by their SHA-256; recent
/// answers are cached briefly, and a revocation in this process drops its entry at once.
final class Authenticator: Sendable {
    private struct Cached {
        var session: Session
        var cachedAt: Double
    }

    private let store: any TokenStore
    private let time: any TimeSource
    private let cache = Mutex<[[UInt8]: Cached]>([:])
    private let cacheLifetime: Double = 30
    private let cacheCapacity = 100_000
    /// Raised after every revocation in this process (once the cache has forgotten the
    /// logins), so a session checked since can be trusted without another lookup.
    private let revocations = Atomic<UInt64>(0)

    init(store: any TokenStore, time: any TimeSource) {
        self.store = store
        self.time = time
    }

    private func now() -> Timestamp { Timestamp(milliseconds: time.wallMilliseconds) }

    static func hash(_ token: String) -> [UInt8] { Digest.sha256(Array(token.utf8)) }

    /// The session for an `Authorization` header value, or a 401 saying why not.
    func authenticate(_ header: String?) async throws -> Session {
        guard let header, let token = Self.bearerToken(header) else {
            throw APIError(.unauthorized, "missing bearer token: send 'Authorization: Bearer <token>'")
        }
        let key = Digest.sha256(Array(token.utf8))
        let clock = time.seconds
        // Read before the lookup: a revocation after it raises the count, so the session
        // returned is never trusted past a revocation that it may have missed.
        let epoch = revocations.load(ordering: .acquiring)
        if let hit = cache.withLock({ $0[key] }), clock - hit.cachedAt < cacheLifetime {
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
        var session = Session(
            tokenID: record.id, userID: user.id, username: user.user.username, isBot: user.user.isBot,
            isAdmin: user.isAdmin, device: record.device, expiresAt: record.expiresAt)
        try checkExpiry(session)
        cache.withLock { cache in
            if cache.count >= cacheCapacity { cache.removeAll(keepingCapacity: true) }
            cache[key] = Cached(session: session, cachedAt: clock)
        }
        session.checkedAt = epoch
        return session
    }

    /// True when no login was revoked in this process since `session` was checked and it
    /// has not expired: then it is still valid, without hashing the token again.
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

    private func checkExpiry(_ session: Session) throws {
        if let expiresAt = session.expiresAt, expiresAt <= now() {
            throw APIError(.unauthorized, "this login expired: log in again", reason: "expired")
        }
    }

    static func revoked(_ record: TokenRecord) -> APIError {
        switch record.revokedReason {
        case "kicked_out":
            let device = record.device.map { " (device '\($0)')" } ?? ""
            return APIError(
                .unauthorized, "this login was ended because the account logged in elsewhere\(device)",
                reason: "kicked_out")
        case "password_changed":
            return APIError(.unauthorized, "the password was changed: log in again", reason: "password_changed")
        default:
            return APIError(.unauthorized, "this login has ended: log in again", reason: "logged_out")
        }
    }

    /// Forgets cached sessions of these tokens (after logout or a kick).
    func invalidate(tokenIDs: Set<Int64>) {
        cache.withLock { cache in
            cache = cache.filter { !tokenIDs.contains($0.value.session.tokenID) }
        }
        revocations.add(1, ordering: .releasing)
    }

    /// Forgets every cached session of one account (password change, role change).
    func invalidate(userID: UserID) {
        cache.withLock { cache in cache = cache.filter { $0.value.session.userID != userID } }
        revocations.add(1, ordering: .releasing)
    }
}
