import IMProtocol

/// Keeps one answer (a history page, a poll's events) within `Limits.answerBytes`: the
/// longest prefix whose JSON fits, and always the first item, so a client can always make
/// progress. The client asks again from where the answer ends (`next_before`, the cursor).
///
/// Sizes are upper estimates, not encodings: text counts twice its UTF-8 bytes (the most
/// JSON escaping makes of the characters validation lets in) plus a fixed allowance for
/// keys, ids and timestamps.
enum AnswerBudget {
    static let fixedBytes = 512

    /// The leading items that fit in `limit` bytes (at least one).
    static func fitting<Item>(_ items: [Item], limit: Int = Limits.answerBytes, size: (Item) -> Int) -> [Item] {
        var total = 0
        for (index, item) in items.enumerated() {
            total += size(item)
            if total > limit { return Array(items.prefix(max(index, 1))) }
        }
        return items
    }

    static func bytes(of message: Message) -> Int {
        fixedBytes + 2 * (message.text.utf8.count + message.sender.utf8.count + (message.clientMessageID?.utf8.count ?? 0))
    }

    static func bytes(of user: User) -> Int {
        let attrs = user.attrs.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count + 8 }
        return fixedBytes + 2 * (user.username.utf8.count + user.nickname.utf8.count + user.avatarURL.utf8.count
            + user.signature.utf8.count + attrs)
    }

    static func bytes(of info: ConversationInfo) -> Int {
        fixedBytes + 2 * (info.name.utf8.count + info.title.utf8.count + info.logoURL.utf8.count
            + info.description.utf8.count + (info.createdBy?.utf8.count ?? 0))
    }

    static func bytes(of event: Event) -> Int {
        fixedBytes + (event.message.map(bytes(of:)) ?? 0) + (event.user.map(bytes(of:)) ?? 0)
            + (event.info.map(bytes(of:)) ?? 0)
            + 2 * ((event.by?.utf8.count ?? 0) + (event.reason?.utf8.count ?? 0))
    }
}
