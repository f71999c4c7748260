import IMProtocol

/// Every message typed and not yet stored, across conversations: shown at once in its
/// dialogue, sent one at a time per conversation in the order typed, each with its own
/// client message id for good, so a send repeated after a lost answer or a reconnect is
/// never stored twice.
///
/// A send that cannot reach the server waits as queued (not failed) and goes again when
/// the connection is back; one the server refused waits as failed, to be sent again or
/// discarded.
public struct Outbox: Sendable, Equatable {
    /// One message on its way.
    public struct Item: Sendable, Equatable {
        public enum State: Sendable, Equatable {
            /// Waiting for the one before it in the same conversation.
            case waiting
            /// Sent; no answer yet.
            case sending
            /// The server could not be reached: goes when the connection is back.
            case queued
            /// Refused, with the reason: sent again only when asked.
            case failed(String)
        }

        public var key: DialogueKey
        public var clientID: String
        public var text: String
        public var replyTo: MessageID?
        public var state: State
    }

    /// In the order typed.
    public private(set) var items: [Item] = []

    public init() {}

    /// The items of one conversation, in order.
    public func items(for key: DialogueKey) -> [Item] { items.filter { $0.key.matches(key) } }

    /// Adds a message typed in `key`'s conversation.
    public mutating func add(_ text: String, to key: DialogueKey, replyTo: MessageID?, clientID: String) {
        items.append(Item(key: key, clientID: clientID, text: text, replyTo: replyTo, state: .waiting))
    }

    /// The sends to start now: per conversation the first item that is not failed, when
    /// it waits or is queued and the connection is `online` (offline it becomes queued).
    /// They are marked as sending. A failed one holds nothing up: it is out of the
    /// flow until sent again.
    public mutating func dispatch(online: Bool) -> [Item] {
        var started: [Item] = []
        var blocked: [DialogueKey] = []
        for index in items.indices {
            let item = items[index]
            if case .failed = item.state { continue }
            if blocked.contains(where: { $0.matches(item.key) }) { continue }
            blocked.append(item.key)
            switch item.state {
            case .waiting where online, .queued where online:
                items[index].state = .sending
                started.append(items[index])
            case .waiting:
                items[index].state = .queued
            default:
                break
            }
        }
        return started
    }

    /// The message went through (its answer, or its own event in the feed).
    public mutating func delivered(clientID: String) {
        items.removeAll { $0.clientID == clientID }
    }

    /// A send that could not reach the server: it and those after it wait for the
    /// connection.
    public mutating func unreachable(clientID: String) {
        guard let index = items.firstIndex(where: { $0.clientID == clientID }) else { return }
        items[index].state = .queued
    }

    /// A send the server refused.
    public mutating func refused(clientID: String, reason: String) {
        guard let index = items.firstIndex(where: { $0.clientID == clientID }) else { return }
        items[index].state = .failed(reason)
    }

    /// A failed send goes again (with the same id); false when it is not failed.
    public mutating func retry(clientID: String) -> Bool {
        guard let index = items.firstIndex(where: { $0.clientID == clientID }), case .failed = items[index].state
        else { return false }
        items[index].state = .waiting
        return true
    }

    /// Drops a failed or queued message; false when it is under way (it may be stored).
    public mutating func discard(clientID: String) -> Bool {
        guard let index = items.firstIndex(where: { $0.clientID == clientID }), items[index].state != .sending
        else { return false }
        items.remove(at: index)
        return true
    }

    /// The item with `clientID`.
    public func item(_ clientID: String) -> Item? { items.first { $0.clientID == clientID } }

    /// A conversation's id became known (its first message): items addressed by name get it.
    public mutating func learn(_ id: ConversationID, for address: ConversationAddress) {
        for index in items.indices where items[index].key.id == nil && items[index].key.address == DialogueKey(address: address).address {
            items[index].key.id = id
        }
    }

    /// Forgets everything (logging out).
    public mutating func removeAll() { items.removeAll() }
}
