import IMProtocol

/// `from:`: who caused the event.
final class SenderCondition: Sendable {
    /// Accepted usernames, lowered, as written order; nil accepts anyone.
    let users: [String]?
    /// `false`: not a bot; `true`: only bots; nil: either.
    let bots: Bool?
    /// The lowest group role accepted; nil accepts any.
    let role: MemberRole?
    /// Only members who joined the event's group this recently (`joined_within`).
    let joinedWithin: ConfigDuration?

    init(users: [String]?, bots: Bool?, role: MemberRole?, joinedWithin: ConfigDuration? = nil) {
        self.users = users
        self.bots = bots
        self.role = role
        self.joinedWithin = joinedWithin
    }

    func matches(_ facts: inout EventFacts) -> Bool {
        guard let actor = facts.actor else { return false }
        if let users, !users.contains(actor) { return false }
        if let bots, isBot(facts) != bots { return false }
        if let role {
            guard let actual = facts.senderRole, actual >= role else { return false }
        }
        if let joinedWithin {
            guard let joined = facts.senderJoinedAt,
                  facts.now.milliseconds - joined.milliseconds <= Int64(joinedWithin.seconds * 1000) else { return false }
        }
        return true
    }

    private func isBot(_ facts: EventFacts) -> Bool {
        facts.senderIsBot
    }

    func failure(_ facts: inout EventFacts) -> String {
        guard let actor = facts.actor else { return "from: the event has no sender" }
        if let users, !users.contains(actor) {
            return "from: sender is '\(actor)', rule wants [\(users.joined(separator: ", "))]"
        }
        if let bots, isBot(facts) != bots {
            return bots ? "from: sender '\(actor)' is not a bot, rule wants bots"
                : "from: sender '\(actor)' is a bot, rule excludes bots"
        }
        if let role {
            guard let actual = facts.senderRole else {
                return "from: the role of '\(actor)' is not known, rule wants \(role.rawValue) or higher"
            }
            if actual < role { return "from: '\(actor)' is \(actual.rawValue), rule wants \(role.rawValue) or higher" }
        }
        if let joinedWithin {
            guard let joined = facts.senderJoinedAt else {
                return "from: when '\(actor)' joined is not known, rule wants within \(joinedWithin)"
            }
            let ago = ConfigDurationText.describe(milliseconds: facts.now.milliseconds - joined.milliseconds)
            return "from: '\(actor)' joined \(ago) ago, rule wants within \(joinedWithin)"
        }
        return "from: does not match"
    }

    var summary: String {
        var parts: [String] = []
        if let users { parts.append("sender is one of [\(users.joined(separator: ", "))]") }
        if let bots { parts.append(bots ? "sender is a bot" : "sender is not a bot") }
        if let role { parts.append("sender is \(role.rawValue) or higher") }
        if let joinedWithin { parts.append("sender joined within \(joinedWithin)") }
        return parts.isEmpty ? "the event has a sender" : parts.joined(separator: " and ")
    }
}
