import IMProtocol
import IMStore
import Synchronization

/// Resolves names to the identities behind them, remembering what never changes: a
/// username's account id, a group's or room's id under its name, the direct conversation
/// of two users. Sends resolve without a database round trip once these are known.
final class ConversationDirectory: Sendable {
    /// What identifies a conversation: these fields never change once it exists (a
    /// group's join policy does, so it is read where it matters, not kept here).
    struct Entry: Sendable, Hashable {
        var id: ConversationID
        var kind: ConversationKind
        var name: String
    }

    private struct Cache {
        var users: [String: UserID] = [:]
        var byName: [String: Entry] = [:]
        var byID: [ConversationID: Entry] = [:]
    }

    private let store: any IMStorage
    private let cache = Mutex(Cache())
    private let capacity = 200_000

    init(store: any IMStorage) { self.store = store }

    /// The account id of a username, or nil when there is no such account.
    func userID(named username: String) async throws -> UserID? {
        if let id = cache.withLock({ $0.users[username] }) { return id }
        guard let record = try await store.user(named: username) else { return nil }
        remember { $0.users[username] = record.id }
        return record.id
    }

    /// Forgets what a username stood for (its account was deleted; the name may be taken
    /// again by someone else).
    func forget(username: String) {
        _ = cache.withLock { $0.users.removeValue(forKey: username) }
    }

    /// The conversation an address names from `viewer`'s side, or nil when it does not
    /// exist (with `createDirect`, the direct conversation with an existing user is made).
    /// Membership is not checked here.
    func entry(for address: ConversationAddress, viewer: UserID, createDirect: Bool) async throws -> Entry? {
        switch address {
        case .id(let id):
            if let entry = cache.withLock({ $0.byID[id] }) { return entry }
            guard let record = try await store.conversation(id: id) else { return nil }
            return remember(record)
        case .user(let name):
            guard let other = try await userID(named: name.lowercased()) else {
                throw APIError(.notFound, "no user '\(name.lowercased())'")
            }
            let key = ConversationRecord.directName(viewer, other)
            if let entry = cache.withLock({ $0.byName["direct:" + key] }) { return entry }
            let record: ConversationRecord? =
                createDirect
                ? try await store.directConversation(viewer, other)
                : try await store.conversation(kind: .direct, name: key)
            return record.map(remember)
        case .group(let name), .room(let name):
            let kind: ConversationKind = if case .group = address { .group } else { .room }
            let lowered = name.lowercased()
            if let entry = cache.withLock({ $0.byName["\(kind.rawValue):\(lowered)"] }) { return entry }
            guard let record = try await store.conversation(kind: kind, name: lowered) else {
                throw APIError(.notFound, "no \(kind.rawValue) '\(lowered)'")
            }
            return remember(record)
        }
    }

    @discardableResult
    private func remember(_ record: ConversationRecord) -> Entry {
        let entry = Entry(id: record.id, kind: record.kind, name: record.name)
        remember { cache in
            cache.byID[entry.id] = entry
            cache.byName["\(entry.kind.rawValue):\(entry.name)"] = entry
        }
        return entry
    }

    private func remember(_ update: (inout Cache) -> Void) {
        cache.withLock { cache in
            // Bounded: past the capacity start over rather than grow without limit.
            if cache.users.count + cache.byID.count > capacity { cache = Cache() }
            update(&cache)
        }
    }
}
