import IMProtocol

/// `member:`: the member a member event is about (`member_joined`, `member_left`, ...):
/// who, whether a bot, their role in the group, how they joined. A message has no member,
/// so it never holds there.
final class MemberCondition: Sendable {
    /// Accepted usernames, lowered, in written order; nil accepts anyone.
    let users: [String]?
    /// `false`: not a bot; `true`: only bots; nil: either.
    let isBot: Bool?
    /// The lowest group role accepted; nil accepts any.
    let role: MemberRole?
    /// How they must have joined; nil accepts any way (and a join the feed does not describe).
    let via: [JoinVia]?

    init(users: [String]?, isBot: Bool?, role: MemberRole?, via: [JoinVia]?) {
        self.users = users
        self.isBot = isBot
        self.role = role
        self.via = via
    }

    func matches(_ facts: inout EventFacts) -> Bool {
        failure(facts) == nil
    }

    /// Why it does not hold, for a person; nil when it holds.
    func failure(_ facts: EventFacts) -> String? {
        guard let member = facts.member else {
            return "member: the event is about no member (it is a \(facts.type.rawValue) event)"
        }
        if let users, !users.contains(member.username) {
            return "member: the member is '\(member.username)', rule wants [\(users.joined(separator: ", "))]"
        }
        if let isBot, member.isBot != isBot {
            return isBot ? "member: '\(member.username)' is not a bot, rule wants bots"
                : "member: '\(member.username)' is a bot, rule excludes bots"
        }
        if let role {
            guard let actual = member.role else {
                return "member: the role of '\(member.username)' is not known, rule wants \(role.rawValue) or higher"
            }
            if actual < role { return "member: '\(member.username)' is \(actual.rawValue), rule wants \(role.rawValue) or higher" }
        }
        if let via {
            let wanted = via.map(\.rawValue).joined(separator: " or ")
            guard let actual = member.via else {
                return "member: how '\(member.username)' joined is not known, rule wants \(wanted)"
            }
            if !via.contains(actual) { return "member: '\(member.username)' joined via \(actual.rawValue), rule wants \(wanted)" }
        }
        return nil
    }

    var summary: String {
        var parts: [String] = []
        if let users { parts.append("member is one of [\(users.joined(separator: ", "))]") }
        if let isBot { parts.append(isBot ? "member is a bot" : "member is not a bot") }
        if let role { parts.append("member is \(role.rawValue) or higher") }
        if let via { parts.append("member joined via " + via.map(\.rawValue).joined(separator: " or ")) }
        return parts.isEmpty ? "the event is about a member" : parts.joined(separator: " and ")
    }
}
