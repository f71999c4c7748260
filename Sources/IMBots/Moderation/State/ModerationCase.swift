import IMProtocol

/// One moderation action the bot took, with its number: what the mod-log shows, what
/// `/case N` answers and what `/undo N` reverses.
public struct ModerationCase: Sendable, Hashable, Codable {
    /// Counts up from 1 in each bot.
    public var number: Int
    /// The action's idempotency key: an event handled again (after a crash) finds its case
    /// instead of opening another.
    public var key: String
    public var at: Timestamp
    /// What was done: `delete`, `mute`, `kick`, `ban`, `warn`, `unmute`, `unban`,
    /// `approve`, `deny`, `slow_mode`, `join_policy`, `report`, `undo`.
    public var action: String
    /// How long, for a mute, ban or slow mode; the policy for `join_policy`.
    public var detail: String?
    /// The member acted on.
    public var user: String?
    /// Where: the group's address.
    public var conversation: String?
    /// The rule that acted.
    public var rule: String
    /// Who acted: the bot, or the admin who asked for an undo.
    public var by: String
    /// The message that led to it (its start), when there was one.
    public var text: String?
    /// The strike that led to it: `spam 2`.
    public var strike: String?
    /// The case this one reverses (`undo`).
    public var undoes: Int?
    /// Who reversed it, once someone did.
    public var undoneBy: String?
    /// Whether it was only logged (`mode: dry` or `shadow`), not done.
    public var dry: Bool?

    /// Whether `/undo` can reverse it: a mute or a ban not yet undone.
    public var undoable: Bool { (action == "mute" || action == "ban") && undoneBy == nil && dry != true }

    /// The mod-log line: `#12 mute 10m @alice in group:lobby, rule banned-words (spam
    /// strike 2): "free money" (undo: /undo 12)`.
    public var line: String {
        var text = "#\(number) " + (dry == true ? "[dry] " : "") + action
        if let detail { text += " \(detail)" }
        if let undoes { text += " #\(undoes)" }
        // A Matrix user id carries its @ already.
        if let user { text += user.hasPrefix("@") ? " \(user)" : " @\(user)" }
        if let conversation { text += " in \(conversation)" }
        text += action == "undo" ? ", by \(by)" : ", rule \(rule)"
        if let strike { text += " (\(strike))" }
        if let quoted = self.text { text += ": \"\(Self.excerpt(quoted))\"" }
        if let undoneBy { text += " (undone by \(undoneBy))" } else if undoable { text += " (undo: /undo \(number))" }
        return text
    }

    /// The most of a message a case keeps (the journal holds every case).
    static let textLimit = 500

    /// The start of a text, on one line, for a mod-log line.
    static func excerpt(_ text: String, limit: Int = 200) -> String {
        let flat = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return flat.count > limit ? String(flat.prefix(limit)) + "…" : flat
    }

    enum CodingKeys: String, CodingKey {
        case number, key, at, action, detail, user, conversation, rule, by, text, strike, undoes, dry
        case undoneBy = "undone_by"
    }
}
