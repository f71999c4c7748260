import Foundation
import IMProtocol
import IMStore
import Testing

/// Avatars: replaced, never duplicated, deleted once nothing shows them, within a budget.
@Suite struct MediaStoreTests {
    static func image(_ fill: UInt8, bytes count: Int = 1_000) -> [UInt8] {
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: fill, count: count)
    }

    /// Stands in for the SHA-256 the server computes: the store only compares it.
    static func digest(_ fill: UInt8) -> [UInt8] { Array(repeating: fill, count: 32) }

    static func mediaRows(_ fixture: StoreFixture) throws -> Int64 { try fixture.count("SELECT count(*) FROM media") }

    @Test(arguments: StoreKind.allCases) func anAvatarRoundTripsAndBecomesTheProfilesAvatar(_ kind: StoreKind) async throws {
        let clock = TestClock()
        try await withStore(kind, clock: clock) { store in
            let alice = try await store.makeUser("alice")
            let bytes = Self.image(7, bytes: 70_000)
            let (user, media) = try await store.setAvatar(
                alice.id, contentType: "image/png", bytes: bytes, sha256: Self.digest(7), budget: 1 << 20)
            #expect(user.user.avatarURL == media.path)
            #expect(media.ownerID == alice.id && media.contentType == "image/png" && media.bytes == bytes)
            #expect(try await store.media(id: media.id) == media)
            #expect(try await store.media(id: "nope") == nil)
            #expect(try await store.media(id: "' OR 1=1 --") == nil)
        }
    }

    @Test(arguments: StoreKind.allCases) func aNewAvatarReplacesTheOldOneWhichIsDeleted(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, fixture in
            let alice = try await store.makeUser("alice")
            let (_, first) = try await store.setAvatar(
                alice.id, contentType: "image/png", bytes: Self.image(1), sha256: Self.digest(1), budget: 1 << 20)
            let (user, second) = try await store.setAvatar(
                alice.id, contentType: "image/png", bytes: Self.image(2), sha256: Self.digest(2), budget: 1 << 20)
            #expect(user.user.avatarURL == second.path)
            #expect(try await store.media(id: first.id) == nil)
            #expect(try Self.mediaRows(fixture) == 1)
        }
    }

    @Test(arguments: StoreKind.allCases) func theSameImageTwiceIsStoredOnce(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, fixture in
            let alice = try await store.makeUser("alice")
            var ids: Set<String> = []
            for _ in 0..<20 {
                let (_, media) = try await store.setAvatar(
                    alice.id, contentType: "image/png", bytes: Self.image(3), sha256: Self.digest(3), budget: 1 << 20)
                ids.insert(media.id)
            }
            #expect(ids.count == 1)
            #expect(try Self.mediaRows(fixture) == 1)
        }
    }

    @Test(arguments: StoreKind.allCases) func anAvatarAGroupShowsAsItsLogoIsKeptAndCountsAgainstTheBudget(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, fixture in
            let alice = try await store.makeUser("alice")
            let group = try await store.makeGroup("team", owner: alice.id)
            let (_, logo) = try await store.setAvatar(
                alice.id, contentType: "image/png", bytes: Self.image(4, bytes: 600), sha256: Self.digest(4), budget: 1_500)
            _ = try await store.updateInfo(group.id, ConversationInfoUpdate(logoURL: logo.path), by: ActingUser(id: alice.id), notice: "logo")
            let (_, avatar) = try await store.setAvatar(
                alice.id, contentType: "image/png", bytes: Self.image(5, bytes: 600), sha256: Self.digest(5), budget: 1_500)
            #expect(try await store.media(id: logo.id) != nil)
            #expect(try Self.mediaRows(fixture) == 2)
            // With the avatar shown by a second group too, nothing is freed by replacing
            // it: two images of 608 bytes are kept, and a third would pass 1,500 bytes.
            let second = try await store.makeGroup("crew", owner: alice.id)
            _ = try await store.updateInfo(second.id, ConversationInfoUpdate(logoURL: avatar.path), by: ActingUser(id: alice.id), notice: "logo")
            let error = await #expect(throws: StoreError.self) {
                _ = try await store.setAvatar(
                    alice.id, contentType: "image/png", bytes: Self.image(6, bytes: 600), sha256: Self.digest(6),
                    budget: 1_500)
            }
            #expect(error?.kind == "overBudget")
            // Once the group shows something else, the old logo goes.
            _ = try await store.updateInfo(
                group.id, ConversationInfoUpdate(logoURL: "https://example.com/logo.png"), by: ActingUser(id: alice.id), notice: "logo")
            #expect(try await store.media(id: logo.id) == nil)
        }
    }

    @Test(arguments: StoreKind.allCases) func aProfileThatStopsShowingAnUploadDeletesIt(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, fixture in
            let alice = try await store.makeUser("alice")
            let (_, media) = try await store.setAvatar(
                alice.id, contentType: "image/png", bytes: Self.image(8), sha256: Self.digest(8), budget: 1 << 20)
            _ = try await store.updateProfile(alice.id, ProfileUpdate(avatarURL: "https://example.com/me.png"))
            #expect(try await store.media(id: media.id) == nil)
            #expect(try Self.mediaRows(fixture) == 0)
        }
    }
}
