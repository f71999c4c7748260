import Foundation
import IMStore
import Testing

/// A restored database goes on from its backup's last feed position in a new epoch: the
/// cursors of every database it descends from are accepted up to the position its backup
/// held, and refused after it (those positions now name other events).
@Suite struct RestoredFeedTests {
    /// Opens the store in `directory` and lets `body` write; the store's epoch, the newest
    /// position issued, and which cursors it accepts.
    static func session(_ directory: TemporaryDirectory, _ body: (SQLiteStore) async throws -> Void = { _ in }) async throws
        -> (epoch: String, last: Int64, accepts: @Sendable (String, Int64) -> Bool)
    {
        let store = try openStore(directory)
        return try await closing(store) { store in
            try await body(store)
            return (store.epoch, store.issuedPosition, { store.acceptsCursor(epoch: $0, position: $1) })
        }
    }

    @Test func cursorsOfEveryEarlierDatabaseReadOnUpToItsBackup() async throws {
        let first = try TemporaryDirectory(), second = try TemporaryDirectory(), third = try TemporaryDirectory()
        defer { [first, second, third].forEach { $0.remove() } }
        let original = try await Self.session(first) { store in
            let alice = try await store.makeUser("alice")
            _ = try await store.makeGroup("ops", owner: alice.id)
        }
        #expect(original.last > 0)
        _ = try await DatabaseBackup.backUp(directory: first.path, to: first.file("backup.sqlite"))
        _ = try await DatabaseBackup.restore(from: first.file("backup.sqlite"), into: second.path)

        let restored = try await Self.session(second) { store in
            let bob = try await store.makeUser("bob")
            _ = try await store.makeGroup("dev", owner: bob.id)
        }
        #expect(restored.epoch != original.epoch)
        #expect(restored.last > original.last)
        #expect(restored.accepts(original.epoch, original.last))
        #expect(!restored.accepts(original.epoch, original.last + 1))
        #expect(restored.accepts(restored.epoch, restored.last))
        #expect(!restored.accepts("someother", 1))

        _ = try await DatabaseBackup.backUp(directory: second.path, to: second.file("backup.sqlite"))
        _ = try await DatabaseBackup.restore(from: second.file("backup.sqlite"), into: third.path)
        let again = try await Self.session(third)
        #expect(Set([again.epoch, restored.epoch, original.epoch]).count == 3)
        #expect(again.accepts(original.epoch, original.last) && !again.accepts(original.epoch, original.last + 1))
        #expect(again.accepts(restored.epoch, restored.last) && !again.accepts(restored.epoch, restored.last + 1))
    }
}
