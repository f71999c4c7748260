import IMProtocol

/// One open conversation: the loaded window of history (oldest page first loaded on
/// demand), the scroll position and the input line (its sends under way wait in the
/// model's `Outbox`).
public struct DialogueState: Sendable, Equatable {
    /// What can be done with a selected entry.
    public enum MessageAction: Sendable, Equatable {
        /// Answer a chat message, quoting it.
        case reply
        /// Change the text of one's own message.
        case edit
        /// Delete a message for everyone: one's own, or anyone's as a group's admin.
        case delete
        /// Send a failed message again, with the same client id.
        case retry
        /// Drop a failed or queued message.
        case discard
    }

    /// Where keys go: the compose line, or the message list (to pick a message to reply
    /// to, edit or delete, or a failed send to retry).
    public enum Focus: Sendable, Equatable { case compose, messages }

    public var key: DialogueKey
    public var kind: ConversationKind
    public var title: String
    /// Loaded messages (chat and system notices), ascending by `seq`.
    public private(set) var messages: [Message] = []
    /// Pass as `before` for the next older page; nil once the start is reached.
    public private(set) var nextBefore: Int64?
    public private(set) var reachedStart = false
    public private(set) var loadingOlder = false
    public private(set) var loaded = false
    /// A failed history load, shown at the top.
    public var historyError: String?
    /// The read marker when the dialogue opened: the "new" divider stands after it.
    public let readMarker: Int64
    /// The unread count when the dialogue opened: with none, there is no divider.
    public let unreadAtOpen: Int
    /// The highest seq a read marker was sent for.
    public var readSent: Int64
    /// Lines scrolled up from the bottom; 0 follows new messages.
    public var scroll = 0
    /// A first-unread jump waiting for older pages.
    public var jumpPending = false
    /// The input line: several messages' worth (a longer text is sent in parts).
    public var compose = TextField("", limit: 16 * Limits.messageTextLength.upperBound, multiline: true)
    public var replyTo: Message?
    /// The message whose new text the compose line holds, while editing.
    public var editing: Message?
    /// What the compose line held before an edit took it over.
    public var draft = ""
    /// The message waiting for "y" to be deleted.
    public var confirmingDelete: Message?
    /// This user's role (groups), once the members list said it.
    public var myRole: MemberRole?
    /// The members (groups) or people present (rooms), once loaded.
    public var members: [Member]?
    /// Why this user cannot post here now, shown in the input line.
    public var posting: PostingBlock?
    public var focus = Focus.compose
    public var selected: DialogueLayout.Entry?
    /// A notice in the status row (e.g. why a reply cannot be made).
    public var notice: String?

    /// Messages per history page.
    public static let pageSize = 50
    /// The most messages kept loaded; beyond it the oldest go (and load again on paging).
    public static let maxLoaded = 5000

    /// A dialogue not loaded yet.
    public init(key: DialogueKey, kind: ConversationKind, title: String, readMarker: Int64, unread: Int = 0) {
        self.key = key
        self.unreadAtOpen = unread
        self.kind = kind
        self.title = title
        self.readMarker = readMarker
        self.readSent = readMarker
    }

    /// The newest loaded message.
    public var newest: Message? { messages.last }

    /// Takes a page of history: the latest one (`before` nil) or an older one.
    public mutating func apply(_ page: MessagePage, before: Int64?) {
        if key.id == nil, let id = page.messages.first?.conversationID { key.id = id }
        if before == nil, loaded {
            // A reload after the live stream restarted. When more than this page was
            // missed, the loaded window starts again from it, so no hole is shown.
            if let oldest = page.messages.map(\.seq).min(), let newest = messages.last?.seq, oldest > newest + 1 {
                messages = []
                for message in page.messages { insert(message) }
                nextBefore = page.nextBefore
                reachedStart = page.nextBefore == nil
                scroll = 0
                return
            }
            for message in page.messages { insert(message) }
            return
        }
        for message in page.messages { insert(message) }
        loaded = true
        loadingOlder = false
        historyError = nil
        nextBefore = page.nextBefore
        reachedStart = page.nextBefore == nil
    }

    /// Marks an older page as asked for; false when there is none or one is under way.
    public mutating func beginLoadingOlder() -> Bool {
        guard loaded, !reachedStart, !loadingOlder, nextBefore != nil else { return false }
        loadingOlder = true
        return true
    }

    /// A history load failed.
    public mutating func historyFailed(_ reason: String) {
        loadingOlder = false
        jumpPending = false
        historyError = reason
    }

    /// A message arrived live or as a send's answer; returns false for a repeat.
    @discardableResult
    public mutating func receive(_ message: Message) -> Bool {
        if key.id == nil { key.id = message.conversationID }
        let added = insert(message)
        if messages.count > Self.maxLoaded, let cut = messages.dropFirst(messages.count - Self.maxLoaded).first {
            messages.removeFirst(messages.count - Self.maxLoaded)
            nextBefore = cut.seq
            reachedStart = false
        }
        return added
    }

    @discardableResult
    private mutating func insert(_ message: Message) -> Bool {
        if let index = messages.lastIndex(where: { $0.seq <= message.seq }) {
            if messages[index].seq == message.seq {
                messages[index] = message  // a newer copy (deleted, say)
                return false
            }
            messages.insert(message, at: index + 1)
        } else {
            messages.insert(message, at: 0)
        }
        return true
    }

    /// A message changed on the server (edited or deleted).
    public mutating func update(_ message: Message) {
        guard let index = messages.firstIndex(where: { $0.id == message.id }) else { return }
        messages[index] = message
        if replyTo?.id == message.id { replyTo = message.deletedAt == nil ? message : nil }
        if confirmingDelete?.id == message.id, message.deletedAt != nil { confirmingDelete = nil }
        if editing?.id == message.id, message.deletedAt != nil { finishEditing() }
    }

    /// Puts one's own message into the compose line to change it.
    public mutating func beginEditing(_ message: Message) {
        if editing == nil { draft = compose.text }
        editing = message
        replyTo = nil
        compose.set(message.text)
        focus = .compose
        selected = nil
    }

    /// Leaves editing: the compose line gets back what it held before.
    public mutating func finishEditing() {
        editing = nil
        compose.set(draft)
        draft = ""
    }

    /// The actions the selected entry allows `me`.
    public func actions(for entry: DialogueLayout.Entry?, me: String) -> [MessageAction] {
        switch entry {
        case .pending?:
            return []  // the outbox knows (`ChatModel.pendingActions`)
        case .message(let seq)?:
            guard let message = messages.first(where: { $0.seq == seq }), message.type == .chat,
                message.deletedAt == nil
            else { return [] }
            if message.sender.lowercased() == me.lowercased() { return [.reply, .edit, .delete] }
            return kind == .group && MemberActions.deletesOthers(myRole) ? [.reply, .delete] : [.reply]
        case nil:
            return []
        }
    }

    /// The selected chat message, if it allows `action` for `me`.
    public func selectedMessage(allowing action: MessageAction, me: String) -> Message? {
        guard case .message(let seq)? = selected, actions(for: selected, me: me).contains(action) else { return nil }
        return messages.first { $0.seq == seq }
    }

    /// A message by id among the loaded ones.
    public func message(_ id: MessageID) -> Message? { messages.first { $0.id == id } }

    /// The first message after the read marker at opening that someone else wrote: the
    /// "new" divider stands before it.
    public func firstUnread(me: String) -> Message? {
        guard unreadAtOpen > 0 else { return nil }
        return messages.first { $0.seq > readMarker && counts($0, me: me) }
    }

    /// The first message not seen yet: after the read marker as it is now, someone else's.
    public func firstUnseen(me: String) -> Message? {
        messages.first { $0.seq > readSent && counts($0, me: me) }
    }

    /// How many messages after `seq` are unread (the server's rule: others' chat messages
    /// not deleted). Exact, as the loaded window always reaches the newest message.
    public func unseen(after seq: Int64, me: String) -> Int {
        messages.reduce(0) { $0 + ($1.seq > seq && counts($1, me: me) ? 1 : 0) }
    }

    /// Messages not seen yet below the screen: the "N new below" count.
    public func unseenBelow(me: String) -> Int { unseen(after: readSent, me: me) }

    private func counts(_ message: Message, me: String) -> Bool {
        message.type == .chat && message.deletedAt == nil && message.sender.lowercased() != me.lowercased()
    }
}
