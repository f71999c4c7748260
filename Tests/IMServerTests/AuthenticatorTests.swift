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
