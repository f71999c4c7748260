import IMProtocol

/// Why this user cannot post in the open conversation right now, as the server said it
/// (a refused send, a moderation event, the members list): shown in the input line
/// until it is lifted or a send goes through.
public enum PostingBlock: Sendable, Equatable {
    /// Muted by a moderator; nil `until`: until unmuted.
    case muted(until: Timestamp?)
    /// A newcomer of a group whose newcomers wait for an admin (`new_members: restricted`).
    case restricted
    /// Banned from the group; nil `until`: until unbanned.
    case banned(until: Timestamp?)
    /// Slow mode: the next post is allowed `seconds` after `at`, when the server said so.
    case slowMode(seconds: Int, at: Timestamp)
    /// Removed from the group (kicked, banned), by whom and why.
    case removed(by: String?, reason: String?)

    /// The block a refused send or edit stands for, or nil for any other failure.
    ///
    /// `at` is when the answer came (the `retry_after` of slow mode counts from then).
    public init?(refusal error: APIError?, at: Timestamp) {
        guard let error else { return nil }
        switch (error.code, error.reason) {
        case (.forbidden, "muted"?): self = .muted(until: error.until)
        case (.forbidden, "restricted"?): self = .restricted
        case (.forbidden, "banned"?): self = .banned(until: error.until)
        case (.rateLimited, "slow_mode"?): self = .slowMode(seconds: max(1, error.retryAfter ?? 1), at: at)
        default: return nil
        }
    }

    /// The sentence the input line shows.
    public func text(_ time: TimeFormat) -> String {
        func when(_ until: Timestamp?, otherwise: String) -> String {
            until.map { "until \(time.day($0)) \(time.clock($0))" } ?? otherwise
        }
        switch self {
        case .muted(let until):
            return "You are muted here \(when(until, otherwise: "until a moderator unmutes you"))."
        case .restricted:
            return "Newcomers here post once an admin lets them: you can read along until then."
        case .banned(let until):
            return "You are banned from this group \(when(until, otherwise: "until an admin unbans you"))."
        case .slowMode(let seconds, let at):
            let next = at.adding(seconds: Double(seconds))
            return "Slow mode: your next post can go at \(time.clockWithSeconds(next)) (wait \(seconds) s)."
        case .removed(let by, let reason):
            return "You were removed from this group\(by.map { " by \($0)" } ?? "")"
                + (reason.map { ": \($0)" } ?? "") + ". Esc goes back."
        }
    }
}
