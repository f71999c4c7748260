import IMClient
import IMProtocol
import Lifecycle

/// Who sent an event, for rules that ask: senders' profiles (`from: {bots: …}`,
/// `{{sender.nickname}}`) and group members' roles (`from: {role: …}`).
///
/// Looked up only when a rule needs them, and kept a minute in caches with a bound (a
/// flood from many accounts costs lookups, not memory); `profile_updated` refreshes a
/// profile, membership and role changes a group's roles.
actor SenderDirectory {
    private let client: IMClient
    private let time: any TimeSource
    private let bot: String
    private let logger: @Sendable (String) -> Void
    private var profiles = BoundedCache<User>(capacity: 10_000, lifetime: 60)
    private var roles = BoundedCache<[String: MemberRole]>(capacity: 1_000, lifetime: 60)

    init(client: IMClient, time: any TimeSource, bot: String, warn: @escaping @Sendable (String) -> Void) {
        self.client = client
        self.time = time
        self.bot = bot
        self.logger = warn
    }

    /// Whether `event` tells something about users or groups (a profile, a membership).
    static func observes(_ event: Event) -> Bool {
        switch event.type {
        case .profileUpdated, .memberJoined, .memberLeft, .memberKicked, .memberBanned, .roleChanged, .conversationUpdated:
            true
        default: false
        }
    }

    /// Notes what an event tells about users and groups, before it is handled.
    func observe(_ event: Event) {
        if event.type == .profileUpdated, let user = event.user {
            profiles.store(user, for: user.username, at: time.seconds)
        }
        if case .group(let group)? = event.conversation?.address {
            switch event.type {
            case .memberJoined, .memberLeft, .memberKicked, .memberBanned, .roleChanged, .conversationUpdated:
                roles.remove(group.lowercased())
            default: break
            }
        }
    }

    /// The profile of whoever caused `event`: the member's own for a member event of
    /// theirs, else looked up (a message's sender, whoever acted on a member); a failed
    /// lookup gives the last one known, or nil.
    func profile(causing event: Event) async -> User? {
        var name: String?
        if event.type == .message || event.type == .messageEdited {
            name = event.message?.sender
        } else if let by = event.by, by.lowercased() != event.user?.username.lowercased() {
            name = by
        }
        guard let username = name else { return event.user }
        let now = time.seconds
        if let cached = profiles.fresh(username, now: now) { return cached }
        guard let user = try? await client.user(named: username) else { return profiles.any(username) }
        profiles.store(user, for: username, at: now)
        return user
    }

    /// The group role of `username` when `event` is in a group; nil when unknown (a rule
    /// asking for a role then does not match, and `explain` says the role was not known).
    func role(of username: String?, in event: Event) async -> MemberRole? {
        guard let username, case .group(let group)? = event.conversation?.address else { return nil }
        let key = group.lowercased()
        let now = time.seconds
        if let cached = roles.fresh(key, now: now) { return cached[username.lowercased()] }
        do {
            let members = try await client.groupMembers(group)
            let byUser = Dictionary(members.map { ($0.user.username.lowercased(), $0.role) }, uniquingKeysWith: max)
            roles.store(byUser, for: key, at: now)
            return byUser[username.lowercased()]
        } catch {
            logger("bot \(bot): cannot read the members of group:\(group) for a role check (trying again in 10 s): \(error)")
            // Kept as known, but stale 10 s from now.
            let known = roles.any(key) ?? [:]
            roles.store(known, for: key, at: now - 50)
            return known[username.lowercased()]
        }
    }
}
