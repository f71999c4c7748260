/// Silences proposed and not yet confirmed, one per user and conversation, each
/// expiring. Bounded; `Codable` for the journal.
public struct SilenceConfirmations: Sendable, Hashable, Codable {
    private var drafts: [String: SilenceDraft] = [:]
    /// Drafts kept at most; past it the one closest to expiring is dropped.
    public let capacity: Int

    /// Creates an empty set holding at most `capacity` drafts.
    public init(capacity: Int = 256) { self.capacity = max(capacity, 1) }

    /// Drafts pending now (expired ones included until the next change).
    public var count: Int { drafts.count }

    /// Keeps `draft` for `user` in `conversation`, replacing an earlier one.
    public mutating func propose(_ draft: SilenceDraft, conversation: String, now: Int64) {
        drafts = drafts.filter { $0.value.expiresAt > now }
        let key = Self.key(conversation, draft.proposedBy)
        if drafts[key] == nil, drafts.count >= capacity,
           let soonest = drafts.min(by: { $0.value.expiresAt < $1.value.expiresAt })?.key {
            drafts[soonest] = nil
        }
        drafts[key] = draft
    }

    /// The draft `user` confirms in `conversation`, removed; nil when there is none or it
    /// has expired.
    public mutating func confirm(by user: String, conversation: String, now: Int64) -> SilenceDraft? {
        guard let draft = drafts.removeValue(forKey: Self.key(conversation, user)), draft.expiresAt > now else {
            return nil
        }
        return draft
    }

    private static func key(_ conversation: String, _ user: String) -> String { conversation + "\u{0}" + user }
}
