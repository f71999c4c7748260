import IMProtocol

/// What `switchboard tail` prints for the events it follows: messages, replies with the
/// line they answer, edits and deletions with what the message said, and members joining,
/// leaving or being removed.
///
/// It keeps the last few hundred messages it printed, so that a reply, an edit or a
/// deletion can show the message it is about without a request of its own; one about an
/// older message names its id.
struct TailLines {
    /// Whether each message's id is shown (`[12]`), for `send --reply-to`, `--edit` and
    /// `--delete`.
    var showsIDs = false
    private var recent: [MessageID: String] = [:]
    private var order: [MessageID] = []
    private static let remembered = 500

    init(showsIDs: Bool = false) {
        self.showsIDs = showsIDs
    }

    /// The line for `event`, or nil for an event tail does not show.
    mutating func line(for event: Event) -> String? {
        guard let conversation = event.conversation else { return nil }
        switch event.type {
        case .message:
            guard let message = event.message else { return nil }
            defer { remember(message) }
            return "\(Self.time(message.createdAt)) \(conversation.address) \(id(message))\(message.sender)"
                + replying(to: message.replyTo) + ": " + message.text.replacingOccurrences(of: "\n", with: "\n    ")
        case .messageEdited:
            // An edit read after its message was deleted has no text left to show: the
            // deletion's line follows, quoting what was remembered.
            guard let message = event.message, message.deletedAt == nil else { return nil }
            defer { remember(message) }
            let was = recent[message.id].map { "edited, was \($0.quoted)" } ?? "edited message \(message.id)"
            return "\(Self.time(event.at)) \(conversation.address) \(id(message))\(message.sender) (\(was)): "
                + message.text.replacingOccurrences(of: "\n", with: "\n    ")
        case .messageDeleted:
            guard let message = event.message else { return nil }
            let by = event.by ?? message.sender
            let whose = by == message.sender ? "their" : "\(message.sender)'s"
            let what = recent[message.id].map { "message \($0.quoted)" } ?? "message \(message.id)"
            return "\(Self.time(event.at)) \(conversation.address) * \(by) deleted \(whose) \(what)"
        case .memberJoined, .memberLeft, .memberKicked, .memberBanned, .memberMuted:
            let member = event.user?.username ?? "someone"
            let notice = event.message?.text ?? "\(member) \(Self.verb(event.type))"
            return "\(Self.time(event.at)) \(conversation.address) * \(notice)"
        default:
            return nil
        }
    }

    private func id(_ message: Message) -> String { showsIDs ? "[\(message.id)] " : "" }

    /// ` (replying to bob: "hey…")`, ` (replying to message 12)`, or nothing.
    private func replying(to id: MessageID?) -> String {
        guard let id else { return "" }
        guard let quoted = recent[id] else { return " (replying to message \(id))" }
        return " (replying to \(quoted))"
    }

    private mutating func remember(_ message: Message) {
        let text = message.text.replacingOccurrences(of: "\n", with: " ")
        let short = text.count > 40 ? String(text.prefix(40)) + "…" : text
        if recent.updateValue("\(message.sender): \"\(short)\"", forKey: message.id) == nil { order.append(message.id) }
        if order.count > Self.remembered { recent[order.removeFirst()] = nil }
    }

    private static func verb(_ type: EventType) -> String {
        switch type {
        case .memberJoined: "joined"
        case .memberLeft: "left"
        case .memberKicked: "was removed"
        case .memberBanned: "was banned"
        default: "was muted"
        }
    }

    /// `2026-11-29 16:41:36`.
    static func time(_ time: Timestamp) -> String {
        time.rfc3339.prefix(19).replacingOccurrences(of: "T", with: " ")
    }
}

private extension String {
    /// `alice: "hello"` → `"hello"`: the remembered line without its sender.
    var quoted: String {
        guard let range = range(of: ": \"") else { return self }
        return String(self[index(range.upperBound, offsetBy: -1)...])
    }
}
