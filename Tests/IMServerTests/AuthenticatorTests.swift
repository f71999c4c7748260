import IMProtocol
import IMStore
import Lifecycle
import Synchronization
import Testing

@testable import IMServer

/// A parked poll woken by a commit trusts its session without hashing the token again,
/// but only while no login was revoked and the session has not expired.
@Suite struct AuthenticatorTests {
    /// One login, `Bearer secret`, of user 7, expiring at 1,000 s.
    struct OneLogin: TokenStore {
        static let hash = Authenticator.hash("secret")
        let record = TokenRecord(
            id: 1, userID: UserID(rawValue: 7), device: nil, createdAt: Timestamp(milliseconds: 0),
            expiresAt: Timestamp(milliseconds: 1_000_000))
        let user = UserRecord(
            user: User(id: UserID(rawValue: 7), username: "alice", nickname: "Alice", createdAt: Timestamp(milliseconds: 0)),
            passwordHash: "x", isAdmin: false)

        func createToken(hash: [UInt8], userID: UserID, device: String?, expiresAt: Timestamp?) async throws
            -> (token: TokenRecord, replaced: [TokenRecord])
        {
            throw StoreError.internalFailure("not used")
        }
        func token(hash: [UInt8]) async throws -> (TokenRecord, UserRecord)? {
            hash == Self.hash ? (record, user) : nil
        }
        func revokeToken(id: Int64, reason: String) async throws {}
        func pruneTokens(before: Timestamp) async throws -> Int { 0 }
        func liveTokens(of userID: UserID, at now: Timestamp) async throws -> [TokenRecord] { [] }
        func recordTokenUse(_ uses: [Int64: Timestamp]) async throws {}
    }

    /// One login whose lookup can be held mid-flight and revoked meanwhile, as a logout
    /// committing between the read and the cache insert would.
    final class RacingLogin: TokenStore {
        private struct State {
            var revoked = false
            var lookups = 0
            var held: CheckedContinuation<Void, Never>?
            var holdNext = false
        }

        private let state = Mutex(State())
        private let arrived = Latch()

        var lookups: Int { state.withLock { $0.lookups } }

        /// The next lookup reads the login (still valid) and then waits for `release()`.
        func holdNextLookup() { state.withLock { $0.holdNext = true } }

        /// Waits until a held lookup has read the login.
        func lookupHeld() async { await arrived.wait() }

        /// The logout's commit.
        func revoke() { state.withLock { $0.revoked = true } }

        /// Lets the held lookup return what it read (the login as it was before).
        func release() {
            let held = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.held = nil }
                return state.held
            }
            held?.resume()
        }

        func token(hash: [UInt8]) async throws -> (TokenRecord, UserRecord)? {
            let login = OneLogin()
            guard hash == OneLogin.hash else { return nil }
            let (record, hold) = state.withLock { state -> (TokenRecord, Bool) in
                state.lookups += 1
                var record = login.record
                if state.revoked {
                    record.revokedAt = Timestamp(milliseconds: 1)
                    record.revokedReason = "logout"
                }
                defer { state.holdNext = false }
                return (record, state.holdNext)
            }
            if hold {
                await withCheckedContinuation { continuation in
                    state.withLock { $0.held = continuation }
                    arrived.open()
                }
            }
            return (record, login.user)
        }

        func createToken(hash: [UInt8], userID: UserID, device: String?, expiresAt: Timestamp?) async throws
            -> (token: TokenRecord, replaced: [TokenRecord])
        {
            throw StoreError.internalFailure("not used")
        }
        func revokeToken(id: Int64, reason: String) async throws {}
        func pruneTokens(before: Timestamp) async throws -> Int { 0 }
        func liveTokens(of userID: UserID, at now: Timestamp) async throws -> [TokenRecord] { [] }
        func recordTokenUse(_ uses: [Int64: Timestamp]) async throws {}
    }

    /// Issue 8, item 9: a logout that commits while a lookup of its token is in flight
    /// (after the read, before the cache insert) must not leave the token trusted.
    @Test func aRevocationDuringALookupLeavesNothingCached() async throws {
        let store = RacingLogin()
        let authenticator = Authenticator(store: store, time: ManualTime(wallMilliseconds: 10_000))
        store.holdNextLookup()
        let lookup = Task { try await authenticator.authenticate("Bearer secret") }
        await store.lookupHeld()
        // The logout commits and tells the cache while the read is held; only then does
        // the lookup come back with the login as it read it.
        store.revoke()
        authenticator.invalidate(tokenIDs: [1])
        store.release()
        _ = try await lookup.value
        // The next request asks the store again, which says the login has ended.
        let error = await #expect(throws: APIError.self) { try await authenticator.authenticate("Bearer secret") }
        #expect(error?.reason == "logged_out")
        #expect(store.lookups == 2)
    }

    @Test func theLocalAdministratorCredentialIsAnAdministratorWithNoAccount() async throws {
        let authenticator = Authenticator(store: OneLogin(), time: ManualTime(), localAdministratorToken: "sbl_local")
        let session = try await authenticator.authenticate("Bearer sbl_local")
        #expect(session.isAdmin && session.isLocalAdministrator)
        await #expect(throws: APIError.self) { try await authenticator.authenticate("Bearer sbl_other") }
    }

    @Test func aCheckedSessionStaysValidUntilALoginIsRevoked() async throws {
        let authenticator = Authenticator(store: OneLogin(), time: ManualTime(wallMilliseconds: 10_000))
        let session = try await authenticator.authenticate("Bearer secret")
        #expect(authenticator.isStillValid(session))

        authenticator.invalidate(tokenIDs: [99])
        #expect(!authenticator.isStillValid(session))
        let again = try await authenticator.authenticate("Bearer secret")
        #expect(authenticator.isStillValid(again))

        authenticator.invalidate(userID: UserID(rawValue: 8))
        #expect(!authenticator.isStillValid(again))
    }

    @Test func aCheckedSessionIsNoLongerValidOnceItExpires() async throws {
        let time = ManualTime(wallMilliseconds: 10_000)
        let authenticator = Authenticator(store: OneLogin(), time: time)
        let session = try await authenticator.authenticate("Bearer secret")
        #expect(authenticator.isStillValid(session))
        time.advance(by: .seconds(990))
        #expect(!authenticator.isStillValid(session))
    }
}
