import IMProtocol

/// What the writer knows of the conversations it writes to, so that a message does not
/// read its conversation's rows again: each one's head (last `seq`, kind, name, slow
/// mode), its members in user order with their standing, and in a one-to-one
/// conversation which of the two the other one blocked and how each addresses it.
///
/// A message to a group of N used to read N member rows on the writer thread (for a
/// group of 50, more than half of the writer's time per send: BENCHMARKS.md, "Event
/// feed"). The cache is kept true by the writer connection's own row changes
/// (`RowChangeObserver`, SQLite's pre-update hook), whatever statement makes them: a
/// member's standing and a conversation's head are written through as they change, a
/// member joining or leaving drops that conversation's roster, a block or a renamed
/// account drops every roster, and anything that can undo changes (a failed statement, a savepoint or a
/// transaction rolled back) drops everything. The writer is the only connection that
/// writes, so nothing else can change the rows behind it.
///
/// Used on the writer thread only. Bounded: at most `maxConversations` rosters and
/// `maxMembers` members in all (past either, everything is dropped and the cache starts
/// over); a conversation larger than `maxMembers` is read every time.
final class RosterCache: RowChangeObserver, @unchecked Sendable {
    // @unchecked: every use is on the writer thread (its jobs and its connection's hooks).

    /// One conversation as the writer sees it.
    final class Roster {
        var head: SQLiteStore.ConversationHead
        /// In user order.
        private(set) var members: [MemberState]
        /// The members' ids, in the same order: the recipients of the conversation's
        /// events, shared with every feed entry made from it.
        let users: [UserID]
        /// Members of a one-to-one conversation whom the other member blocked.
        let blocked: Set<UserID>
        /// How each member addresses a one-to-one conversation (`user:<the other one>`),
        /// in member order; empty for groups and rooms, which everyone addresses alike.
        let directAddresses: [ConversationAddress]

        init(
            head: SQLiteStore.ConversationHead, members: [MemberState], blocked: Set<UserID>,
            directAddresses: [ConversationAddress]
        ) {
            self.head = head
            self.members = members
            self.users = members.map(\.user)
            self.blocked = blocked
            self.directAddresses = directAddresses
        }

        /// How the recipients address the conversation: one address for all, or one per
        /// member (`FeedMessage.addresses`).
        var addresses: [ConversationAddress] {
            head.kind == .direct ? directAddresses : [ConversationAddress(kind: head.kind, name: head.name)]
        }

        /// A member's standing, or nil when `user` is not a member.
        func member(_ user: UserID) -> MemberState? { index(of: user).map { members[$0] } }

        fileprivate func index(of user: UserID) -> Int? {
            var low = 0
            var high = members.count
            while low < high {
                let middle = (low + high) / 2
                if members[middle].user.rawValue < user.rawValue { low = middle + 1 } else { high = middle }
            }
            return low < members.count && members[low].user == user ? low : nil
        }

        fileprivate func update(_ index: Int, _ change: (inout MemberState) -> Void) { change(&members[index]) }
    }

    static let maxConversations = 20_000
    static let maxMembers = 250_000

    private var rosters: [Int64: Roster] = [:]
    private var memberCount = 0
    private var columns = Columns()

    /// Where the cached columns are in their tables (read from the schema, so a later
    /// version that adds columns does not move them under the cache).
    private struct Columns {
        var memberConversation: Int32 = -1
        var memberUser: Int32 = -1
        var memberRole: Int32 = -1
        var memberMutedUntil: Int32 = -1
        var memberRestricted: Int32 = -1
        var memberLastPostedAt: Int32 = -1
        var lastSeq: Int32 = -1
        var kind: Int32 = -1
        var name: Int32 = -1
        var slowMode: Int32 = -1
        var username: Int32 = -1
    }

    /// Reads where the columns are and starts watching `connection`, the writer's.
    func attach(to connection: SQLiteConnection) throws {
        func positions(_ table: String) throws -> [String: Int32] {
            var found: [String: Int32] = [:]
            try connection.query("SELECT cid, name FROM pragma_table_info(?)", [table]) { row in
                found[row.text(1)] = Int32(row.int(0))
            }
            return found
        }
        let members = try positions("members")
        let conversations = try positions("conversations")
        let users = try positions("users")
        func column(_ table: [String: Int32], _ name: String) throws -> Int32 {
            guard let index = table[name] else { throw StoreError.internalFailure("the schema has no column \(name)") }
            return index
        }
        columns = Columns(
            memberConversation: try column(members, "conversation_id"), memberUser: try column(members, "user_id"),
            memberRole: try column(members, "role"), memberMutedUntil: try column(members, "muted_until"),
            memberRestricted: try column(members, "restricted"),
            memberLastPostedAt: try column(members, "last_posted_at"), lastSeq: try column(conversations, "last_seq"),
            kind: try column(conversations, "kind"), name: try column(conversations, "name"),
            slowMode: try column(conversations, "slow_mode"), username: try column(users, "username"))
        connection.observeRowChanges(self)
    }

    /// The conversation's roster, read when not cached; throws `notFound` when there is
    /// no such conversation.
    func roster(_ conversationID: ConversationID, _ connection: SQLiteConnection) throws -> Roster {
        if let cached = rosters[conversationID.rawValue] { return cached }
        let roster = try Self.read(conversationID, connection)
        guard roster.members.count <= Self.maxMembers else { return roster }
        if rosters.count >= Self.maxConversations || memberCount + roster.members.count > Self.maxMembers {
            forgetAll()
        }
        rosters[conversationID.rawValue] = roster
        memberCount += roster.members.count
        return roster
    }

    private static func read(_ conversationID: ConversationID, _ connection: SQLiteConnection) throws -> Roster {
        guard let head = try connection.first(
            "SELECT last_seq, kind, name, slow_mode FROM conversations WHERE id = ?", conversationID.rawValue,
            as: {
                SQLiteStore.ConversationHead(
                    lastSeq: $0.int(0), kind: ConversationKind(rawValue: $0.text(1)) ?? .group, name: $0.text(2),
                    slowMode: Int($0.int(3)))
            })
        else { throw StoreError.notFound("no conversation \(conversationID)") }
        var members: [MemberState] = []
        var names: [String] = []
        try connection.query(
            """
            SELECT m.user_id, m.role, m.muted_until, m.restricted, m.last_posted_at, u.username
            FROM members m JOIN users u ON u.id = m.user_id WHERE m.conversation_id = ? ORDER BY m.user_id
            """,
            [conversationID.rawValue]
        ) { row in
            members.append(
                MemberState(
                    user: UserID(rawValue: row.int(0)), role: MemberRole(rawValue: row.text(1)) ?? .member,
                    mutedUntil: row.optionalInt(2), restricted: row.bool(3), lastPostedAt: row.optionalInt(4)))
            if head.kind == .direct { names.append(row.text(5)) }
        }
        var blocked = Set<UserID>()
        var directAddresses: [ConversationAddress] = []
        if head.kind == .direct {
            // `user:<the other one>`; the conversation's name holds both ids, so a side
            // that left is still named (as `SQLiteStore.address(of:viewer:)` does).
            let ids = head.name.split(separator: ":").compactMap { Int64($0) }
            for member in members {
                let other = ids.first { $0 != member.user.rawValue } ?? member.user.rawValue
                var name = zip(members, names).first { $0.0.user.rawValue == other }?.1
                if name == nil {
                    name = try connection.first("SELECT username FROM users WHERE id = ?", other, as: { $0.text(0) })
                }
                directAddresses.append(.user(name ?? "unknown"))
            }
            try connection.query(
                """
                SELECT b.blocked_id FROM blocks b JOIN members m ON m.user_id = b.user_id
                WHERE m.conversation_id = ?1 AND b.user_id != b.blocked_id
                    AND b.blocked_id IN (SELECT user_id FROM members WHERE conversation_id = ?1)
                """,
                [conversationID.rawValue]
            ) { row in blocked.insert(UserID(rawValue: row.int(0))) }
        }
        return Roster(head: head, members: members, blocked: blocked, directAddresses: directAddresses)
    }

    /// Whether the cached roster of `conversationID` equals what the database holds now
    /// (for tests: after any sequence of writes, the cache must say what a read says).
    func agreesWithDatabase(_ conversationID: ConversationID, _ connection: SQLiteConnection) throws -> Bool {
        guard let cached = rosters[conversationID.rawValue] else { return true }
        let read = try Self.read(conversationID, connection)
        return cached.head == read.head && cached.members == read.members && cached.users == read.users
            && cached.blocked == read.blocked && cached.directAddresses == read.directAddresses
    }

    /// The conversations cached now (for tests).
    var cachedConversations: Set<Int64> { Set(rosters.keys) }

    private func forget(_ conversationID: Int64?) {
        guard let conversationID, let roster = rosters.removeValue(forKey: conversationID) else { return }
        memberCount -= roster.members.count
    }

    private func forgetAll() {
        rosters.removeAll(keepingCapacity: true)
        memberCount = 0
    }

    // MARK: RowChangeObserver

    func rowChanging(_ change: RowChange) {
        if change.isIn("members") {
            memberChanging(change)
        } else if change.isIn("conversations") {
            conversationChanging(change)
        } else if change.isIn("blocks") {
            forgetAll()
        } else if change.isIn("users"), change.operation != .insert,
            change.old(columns.username)?.text != change.new(columns.username)?.text
        {
            // A one-to-one conversation is addressed by the other one's name.
            forgetAll()
        }
    }

    func changesUndone() { forgetAll() }

    private func memberChanging(_ change: RowChange) {
        let before = change.old(columns.memberConversation)?.int
        let after = change.new(columns.memberConversation)?.int
        guard change.operation == .update, let before, before == after,
            change.old(columns.memberUser)?.int == change.new(columns.memberUser)?.int
        else {
            // Someone joins or leaves (or a row moves, which nothing does).
            forget(before)
            forget(after)
            return
        }
        guard let roster = rosters[before] else { return }
        guard let user = change.new(columns.memberUser)?.int, let index = roster.index(of: UserID(rawValue: user)),
            let role = change.new(columns.memberRole).flatMap({ MemberRole(rawValue: $0.text) })
        else {
            forget(before)
            return
        }
        let mutedUntil = change.new(columns.memberMutedUntil)?.optionalInt
        let restricted = (change.new(columns.memberRestricted)?.int ?? 0) != 0
        let lastPostedAt = change.new(columns.memberLastPostedAt)?.optionalInt
        roster.update(index) { member in
            member.role = role
            member.mutedUntil = mutedUntil
            member.restricted = restricted
            member.lastPostedAt = lastPostedAt
        }
    }

    private func conversationChanging(_ change: RowChange) {
        switch change.operation {
        case .insert:
            // A new conversation: nothing cached is about it.
            break
        case .delete:
            forget(change.oldRowID)
        case .update:
            guard let roster = rosters[change.oldRowID] else { return }
            guard change.newRowID == change.oldRowID, let lastSeq = change.new(columns.lastSeq)?.int,
                let kind = change.new(columns.kind).flatMap({ ConversationKind(rawValue: $0.text) }),
                let name = change.new(columns.name)?.text, let slowMode = change.new(columns.slowMode)?.int
            else {
                forget(change.oldRowID)
                return
            }
            if kind != roster.head.kind || name != roster.head.name {
                // Not something a conversation does; read it afresh rather than reason about it.
                forget(change.oldRowID)
                return
            }
            roster.head.lastSeq = lastSeq
            roster.head.slowMode = Int(slowMode)
        }
    }
}
