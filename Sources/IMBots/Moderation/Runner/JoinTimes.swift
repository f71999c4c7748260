import IMClient
import IMProtocol
import Lifecycle

/// When members joined the groups a bot watches, for `from: {joined_within: …}`.
///
/// A `member_joined` event in the feed says it exactly; for members who joined before the
/// bot saw it, the group's member list is read (once a minute at most per group, and
/// again after a join or a leave): on Matrix the room's membership state, whose join
/// events carry their time. Bounded like the sender directory.
actor JoinTimes {
    private let client: IMClient
    private let matrix: MatrixLink?
    private let time: any TimeSource
    private let warn: @Sendable (String) -> Void
    /// By `group/username`: from the feed.
    private var seen = BoundedCache<Timestamp>(capacity: 20_000, lifetime: .infinity)
    /// By group: from its member list.
    private var lists = BoundedCache<[String: Timestamp]>(capacity: 1_000, lifetime: 60)

    init(client: IMClient, matrix: MatrixLink? = nil, time: any TimeSource, warn: @escaping @Sendable (String) -> Void) {
        self.client = client
        self.matrix = matrix
        self.time = time
        self.warn = warn
    }

    /// Notes a join or a leave.
    func observe(_ event: Event) {
        guard case .group(let group)? = event.conversation?.address, let user = event.user else { return }
        let key = group.lowercased() + "/" + user.username.lowercased()
        switch event.type {
        case .memberJoined:
            seen.store(event.at, for: key, at: time.seconds)
            lists.remove(group.lowercased())
        case .memberLeft, .memberKicked, .memberBanned:
            seen.remove(key)
            lists.remove(group.lowercased())
        default:
            break
        }
    }

    /// When `username` joined the group `event` is in; nil when unknown or not a group.
    func joinedAt(_ username: String?, in event: Event) async -> Timestamp? {
        guard let username, case .group(let group)? = event.conversation?.address else { return nil }
        let name = username.lowercased(), key = group.lowercased()
        if let known = seen.any(key + "/" + name) { return known }
        let now = time.seconds
        if let list = lists.fresh(key, now: now) { return list[name] }
        do {
            let list: [String: Timestamp]
            if let matrix {
                list = try await matrix.joinTimes(of: group)
            } else {
                let members = try await client.groupMembers(group)
                list = Dictionary(members.map { ($0.user.username.lowercased(), $0.joinedAt) }, uniquingKeysWith: max)
            }
            lists.store(list, for: key, at: now)
            return list[name]
        } catch {
            warn("cannot read the members of group:\(group) to see when \(name) joined (trying again in 10 s): \(error)")
            // Kept as known, but stale 10 s from now.
            lists.store(lists.any(key) ?? [:], for: key, at: now - 50)
            return lists.any(key)?[name]
        }
    }
}
