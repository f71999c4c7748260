import Foundation
import IMProtocol
import TestSupport
import Testing

@testable import IMStore

/// The SQLite writer's roster cache (`RosterCache`) against the rows it stands for.
///
/// A send is let through or refused from the cached roster of its conversation (its
/// members' roles, mutes, restrictions and last posts, its slow mode, who blocked whom),
/// not from a read of the rows. A roster that fell behind its rows would let a sender
/// post whom the rows keep out, or refuse one they let in. These tests prove it does not
/// fall behind:
///
/// - Seeded random runs of the store's own operations (sends by members, outsiders, the
///   muted, the restricted, the banned, the slowed and the blocked; joins, invitations,
///   approvals, leaves; every moderation act; settings; blocks; account deletions;
///   read markers; edits and deletions of messages; and write jobs that fail after
///   changing rows), with time moved by hand so mutes and slow mode run out. After every
///   step each cached roster equals what the database holds, and every send was
///   accepted or refused exactly as the rows, read afresh before it, say it should be
///   (with the same error, and an accepted message numbered right after the last).
/// - The undo paths one by one: a job undone in its savepoint, a batch rolled back and
///   run again with each job isolated, and a statement that failed after changing some
///   rows while its transaction went on.
@Suite struct RosterCacheTests {
    /// Each seed is one run of `steps` steps, on a store of its own; the runs go side by
    /// side.
    static let seeds: [UInt64] = [1, 2, 3, 4, 5, 6]
    static let steps = 600

    // About 35 s alone; a guard against a hang, not a measure of speed (149 s once on a
    // machine loaded by other builds).
    @Test(.timeLimit(.minutes(5)))
    func randomWritesKeepEveryRosterTrueAndEverySendDecidedAsTheRowsSay() async throws {
        let runs = try await withThrowingTaskGroup(of: RosterRun.Summary.self) { group in
            for seed in Self.seeds {
                group.addTask {
                    try await withRosterStore { store, clock in
                        let run = try await RosterRun.start(seed: seed, store: store, clock: clock)
                        for _ in 0..<Self.steps where !run.failed { try await run.step() }
                        return run.summary
                    }
                }
            }
            var runs: [RosterRun.Summary] = []
            for try await run in group { runs.append(run) }
            return runs.sorted { $0.seed < $1.seed }
        }
        guard !runs.contains(where: \.failed) else { return }
        // The runs prove something only if they went through every kind of decision, and
        // mostly with rosters in the cache to decide from.
        for decision in ["accepted", "notMember", "muted", "restricted", "slowMode", "blocked"] {
            let count = runs.reduce(0) { $0 + $1.decisions[decision, default: 0] }
            #expect(count >= 10, "only \(count) sends decided \(decision): \(runs.map(\.decisions))")
        }
        for run in runs {
            #expect(run.comparisons >= Self.steps, "seed \(run.seed) compared only \(run.comparisons) rosters")
            #expect(
                run.cachedSends >= Self.steps / 10, "seed \(run.seed): only \(run.cachedSends) sends found their roster cached")
        }
    }

    /// A job that changes a member and then throws, in a batch with a job that commits:
    /// the batch runs again with each job in a savepoint, the failing one's savepoint is
    /// rolled back, and what the cache took from its changes (in both runs) goes with it.
    @Test(.timeLimit(.minutes(1)))
    func aJobUndoneInItsSavepointLeavesTheRostersTrue() async throws {
        try await withRosterStore { store, clock in
            let (group, owner, admin, member) = try await Self.slowGroup(store)
            // The admin's post puts the group's roster in the cache; admins are not slowed.
            try await store.send("first", to: group, from: admin)
            #expect(try await Self.cached(store).contains(group.rawValue))
            let rerunsBefore = store.database.writerStats.isolatedReruns

            let hold = WriterHold()
            let holding = Task { try await store.database.write { _ in hold.hold() } }
            await hold.waitUntilHeld()
            // Queued in this order behind the held job, so both are taken in the next batch.
            let failing = Task {
                try await store.database.write { context in
                    // Read in the job, so that the roster is cached when the changes come,
                    // in the batch's second run too.
                    _ = try store.rosters.roster(group, context.connection)
                    try Self.demoteAndMute(admin, in: group, context.connection)
                    throw Deliberate(index: 1)
                }
            }
            await Self.untilQueued(1, store)
            let until = Timestamp(milliseconds: clock.now.milliseconds + 3_600_000)
            let muting = Task {
                try await store.moderate(
                    ModerationAct(
                        conversationID: group, by: ActingUser(id: owner), action: .mute, target: member, until: until,
                        notice: "muted"))
            }
            await Self.untilQueued(2, store)
            hold.release()
            try await holding.value
            await #expect(throws: Deliberate(index: 1)) { try await failing.value }
            #expect(try await muting.value.changed)
            #expect(store.database.writerStats.isolatedReruns == rerunsBefore + 1)

            #expect(try await Self.disagreeing(store) == [])
            // The admin is still an admin, unmuted: posts again at once, slow mode or not.
            try await store.send("second", to: group, from: admin)
            await #expect(throws: StoreError.muted(until: until)) { try await store.send("no", to: group, from: member) }
            #expect(try await Self.disagreeing(store) == [])
        }
    }

    /// A job that changes a member, then throws the first time it runs only: the batch is
    /// rolled back (the cache heard of its changes), and in the batch's second run the
    /// job changes nothing and succeeds. The rollback alone must take the changes out of
    /// the cache.
    @Test(.timeLimit(.minutes(1)))
    func aBatchRolledBackBeforeItRunsAgainLeavesTheRostersTrue() async throws {
        try await withRosterStore { store, _ in
            let (group, _, admin, _) = try await Self.slowGroup(store)
            try await store.send("first", to: group, from: admin)
            #expect(try await Self.cached(store).contains(group.rawValue))
            let rerunsBefore = store.database.writerStats.isolatedReruns
            let runs = Shared(0)
            try await store.database.write { context in
                let run = runs.update { count in
                    count += 1
                    return count
                }
                guard run == 1 else { return }
                // Read in this batch, so the roster is cached when the changes come.
                _ = try store.rosters.roster(group, context.connection)
                try Self.demoteAndMute(admin, in: group, context.connection)
                throw Deliberate(index: 1)
            }
            #expect(runs.value == 2)
            #expect(store.database.writerStats.isolatedReruns == rerunsBefore + 1)
            #expect(try await Self.disagreeing(store) == [])
            try await store.send("second", to: group, from: admin)
            #expect(try await Self.disagreeing(store) == [])
        }
    }

    /// A statement that fails after it changed some rows is undone by SQLite alone, while
    /// its transaction (and job) go on and commit: the cache must not keep what it heard
    /// of the rows the statement changed before it failed.
    @Test(.timeLimit(.minutes(1)))
    func aStatementFailingPartWayLeavesTheRostersTrue() async throws {
        try await withRosterStore { store, clock in
            let (group, owner, admin, member) = try await Self.slowGroup(store)
            try await store.send("first", to: group, from: admin)
            let now = clock.now.milliseconds
            let (failure, agreed) = try await store.database.write { context -> ((any Error)?, Bool) in
                let connection = context.connection
                _ = try store.rosters.roster(group, connection)
                // Members are changed in user order; the last one's new value overflows,
                // after the others' were written (and heard of).
                let last = max(owner.rawValue, admin.rawValue, member.rawValue)
                let failure: (any Error)?
                do {
                    try connection.execute(
                        """
                        UPDATE members SET muted_until = CASE WHEN user_id = ? THEN abs(?) ELSE ? END,
                            role = 'member', restricted = 1, last_posted_at = ?
                        WHERE conversation_id = ?
                        """,
                        last, Int64.min, MemberState.untilUnmuted, now, group.rawValue)
                    failure = nil
                } catch {
                    failure = error
                }
                _ = try store.rosters.roster(group, connection)
                return (failure, try store.rosters.agreesWithDatabase(group, connection))
            }
            #expect(failure is SQLiteError, "\(String(describing: failure))")
            #expect(agreed)
            #expect(try await Self.disagreeing(store) == [])
            // Nobody was muted, restricted or demoted: the admin and the others post.
            try await store.send("second", to: group, from: admin)
            try await store.send("third", to: group, from: owner)
            try await store.send("fourth", to: group, from: member)
            #expect(try await Self.disagreeing(store) == [])
        }
    }

    // MARK: Helpers

    /// A group in slow mode (a minute) with its owner, an admin and a member, in that user
    /// order.
    static func slowGroup(_ store: SQLiteStore) async throws
        -> (group: ConversationID, owner: UserID, admin: UserID, member: UserID)
    {
        let owner = try await store.makeUser("owner").id
        let admin = try await store.makeUser("admin").id
        let member = try await store.makeUser("member").id
        let group = try await store.createConversation(
            kind: .group, name: "slow", title: "", description: "", logoURL: "", creator: owner,
            settings: GroupSettings(slowMode: ConfigDuration(seconds: 60))
        ).id
        _ = try await store.addMember(group, admin, role: .admin, change: MembershipChange(event: .memberJoined, notice: nil))
        _ = try await store.addMember(group, member, role: .member, change: MembershipChange(event: .memberJoined, notice: nil))
        return (group, owner, admin, member)
    }

    /// Makes `user` a restricted plain member muted until unmuted, with another time of
    /// last post, and the group slower with a later last message: every change a send
    /// decides by.
    static func demoteAndMute(_ user: UserID, in group: ConversationID, _ connection: SQLiteConnection) throws {
        try connection.execute(
            """
            UPDATE members SET role = 'member', muted_until = ?, restricted = 1, last_posted_at = 0
            WHERE conversation_id = ? AND user_id = ?
            """,
            MemberState.untilUnmuted, group.rawValue, user.rawValue)
        try connection.execute(
            "UPDATE conversations SET slow_mode = slow_mode + 60, last_seq = last_seq + 5 WHERE id = ?", group.rawValue)
    }

    /// Returns once `count` write jobs wait in the writer's queue.
    static func untilQueued(_ count: Int, _ store: SQLiteStore) async {
        while store.database.queuedWrites < count { await Task.yield() }
    }

    /// The conversations whose rosters are cached now.
    static func cached(_ store: SQLiteStore) async throws -> Set<Int64> {
        try await store.database.write { _ in store.rosters.cachedConversations }
    }

    /// The cached conversations whose rosters differ from their rows.
    static func disagreeing(_ store: SQLiteStore) async throws -> [Int64] {
        try await store.database.write { context in
            try store.rosters.cachedConversations.sorted().filter {
                try !store.rosters.agreesWithDatabase(ConversationID(rawValue: $0), context.connection)
            }
        }
    }
}

/// Runs `body` with a fresh SQLite store whose clock moves only when the test moves it;
/// closes and removes it after.
private func withRosterStore<T>(_ body: (SQLiteStore, TestClock) async throws -> T) async throws -> T {
    let directory = try TemporaryDirectory()
    let clock = TestClock(step: 0)
    return try await ensuring({
        try await closing(try openStore(directory, clock: clock)) { store in try await body(store, clock) }
    }) {
        directory.remove()
    }
}

/// SplitMix64: the same seed, the same numbers, on every machine.
private struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// What the rows say about one sender in one conversation, read before the send.
private struct SendRows: Sendable {
    struct MemberRow: Sendable {
        var role: String
        var mutedUntil: Int64?
        var restricted: Bool
        var lastPostedAt: Int64?
    }

    var kind: String
    var slowMode: Int64
    var lastSeq: Int64
    var member: MemberRow?
    /// Whether the other member of a one-to-one conversation blocks the sender.
    var blockedByTheOther: Bool

    /// Why the rows refuse the send at `now` (milliseconds), or nil when they allow it:
    /// the store's documented rules (`MessageStore.appendMessage`), written out again here.
    func refusal(at now: Int64) -> StoreError? {
        guard let member else { return .notMember }
        if let mutedUntil = member.mutedUntil, mutedUntil > now {
            return .muted(until: mutedUntil == Int64.max ? nil : Timestamp(milliseconds: mutedUntil))
        }
        if member.restricted { return .restricted }
        if kind == "group", slowMode > 0, member.role == "member", let lastPostedAt = member.lastPostedAt {
            let wait = lastPostedAt + slowMode * 1000 - now
            if wait > 0 { return .slowMode(retryAfter: Int((wait + 999) / 1000)) }
        }
        if kind == "direct", blockedByTheOther { return .blocked }
        return nil
    }
}

/// One seeded run against one store: the accounts and conversations made so far, what
/// was decided, and a log of the steps for a failure to show.
private final class RosterRun {
    let seed: UInt64
    let store: SQLiteStore
    let clock: TestClock
    var random: SeededGenerator
    var users: [UserID] = []
    var deleted: Set<UserID> = []
    var groups: [ConversationID] = []
    var room: ConversationID
    var directs: [ConversationID] = []
    var messages: [(id: MessageID, conversation: ConversationID, sender: UserID)] = []
    /// Sends by how they were decided (`accepted` or the refusal's kind).
    var decisions: [String: Int] = [:]
    /// Cached rosters compared with their rows after the steps.
    var comparisons = 0
    /// Sends whose conversation's roster was in the cache before them.
    var cachedSends = 0
    var failed = false
    /// The conversation and sender of the last accepted send.
    private var lastPost: (ConversationID, UserID)?
    /// Someone whose standing just changed (a join, a moderation act, a group's settings)
    /// and where: the next send is often theirs.
    private var lastChanged: (ConversationID, UserID)?
    private var stepNumber = 0
    private var log: [String] = []
    private var cachedNow: Set<Int64> = []

    /// What a run did, for the test to judge.
    struct Summary: Sendable {
        var seed: UInt64
        var failed: Bool
        var decisions: [String: Int]
        var comparisons: Int
        var cachedSends: Int
    }

    var summary: Summary {
        Summary(seed: seed, failed: failed, decisions: decisions, comparisons: comparisons, cachedSends: cachedSends)
    }

    private init(seed: UInt64, store: SQLiteStore, clock: TestClock, room: ConversationID) {
        self.seed = seed
        self.store = store
        self.clock = clock
        self.random = SeededGenerator(seed: seed)
        self.room = room
    }

    /// Seven accounts, three groups (open with restricted newcomers; by approval with
    /// slow mode; invite-only with restricted newcomers and a short slow mode), a room,
    /// and a few members in each.
    static func start(seed: UInt64, store: SQLiteStore, clock: TestClock) async throws -> RosterRun {
        var users: [UserID] = []
        for index in 0..<7 { users.append(try await store.makeUser("user\(index)").id) }
        let settings = [
            GroupSettings(join: .open, newMembers: .restricted),
            GroupSettings(join: .approval, slowMode: ConfigDuration(seconds: 30)),
            GroupSettings(join: .invite, newMembers: .restricted, slowMode: ConfigDuration(seconds: 5)),
        ]
        var groups: [ConversationID] = []
        for (index, settings) in settings.enumerated() {
            let group = try await store.createConversation(
                kind: .group, name: "group\(index)", title: "", description: "", logoURL: "", creator: users[index],
                settings: settings)
            groups.append(group.id)
            for member in [users[index + 1], users[index + 3]] {
                _ = try await store.addMember(
                    group.id, member, role: .member, change: MembershipChange(event: .memberJoined, notice: "joined"))
            }
        }
        let room = try await store.createConversation(
            kind: .room, name: "room", title: "", description: "", logoURL: "", creator: users[6])
        let run = RosterRun(seed: seed, store: store, clock: clock, room: room.id)
        run.users = users
        run.groups = groups
        return run
    }

    // MARK: Choosing

    func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &random)] }

    func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }

    /// Someone in the run, deleted accounts included.
    func anyone() -> UserID { pick(users) }

    var now: Int64 { clock.now.milliseconds }

    /// The members of a conversation and their roles, read now.
    func members(_ conversation: ConversationID) async throws -> [(user: UserID, role: MemberRole)] {
        try await store.database.read { connection in
            try connection.rows(
                "SELECT user_id, role FROM members WHERE conversation_id = ? ORDER BY user_id", conversation.rawValue,
                as: { (UserID(rawValue: $0.int(0)), MemberRole(rawValue: $0.text(1)) ?? .member) })
        }
    }

    /// Mostly a member of `conversation`, now and then anyone.
    func someone(in conversation: ConversationID, outsiders percent: Int) async throws -> UserID {
        let members = try await members(conversation)
        return members.isEmpty || chance(percent) ? anyone() : pick(members).user
    }

    /// Who acts in a group: mostly its owner or an admin, sometimes a member or anyone,
    /// now and then as a server administrator.
    func actor(in group: ConversationID) async throws -> ActingUser {
        let members = try await members(group)
        let moderators = members.filter { $0.role >= .admin }
        let id: UserID =
            if !moderators.isEmpty && chance(80) {
                pick(moderators).user
            } else if !members.isEmpty && chance(70) {
                pick(members).user
            } else {
                anyone()
            }
        return ActingUser(id: id, isServerAdministrator: chance(5))
    }

    // MARK: Steps

    enum Action: CaseIterable {
        case send, join, invite, approve, addMember, leave, moderate, settings, block, unblock, markRead, edit,
            delete, deleteUser, createUser, failingJob, failingStatement
    }

    static let weights: [(Action, Int)] = [
        (.send, 40), (.join, 6), (.invite, 2), (.approve, 2), (.addMember, 4), (.leave, 3), (.moderate, 16),
        (.settings, 5), (.block, 4), (.unblock, 3), (.markRead, 3), (.edit, 3), (.delete, 2), (.deleteUser, 1),
        (.createUser, 1), (.failingJob, 2), (.failingStatement, 2),
    ]

    func chooseAction() -> Action {
        var roll = Int.random(in: 0..<Self.weights.reduce(0) { $0 + $1.1 }, using: &random)
        for (action, weight) in Self.weights {
            if roll < weight { return action }
            roll -= weight
        }
        return .send
    }

    /// Moves time on, does one random thing, then checks every cached roster.
    func step() async throws {
        stepNumber += 1
        // Mostly less than the slow modes and mutes last, now and then more.
        clock.advance(milliseconds: pick([0, 0, 0, 1, 300, 1_000, 1_000, 2_000, 4_000, 9_000, 31_000, 61_000]))
        let action = chooseAction()
        switch action {
        case .send: try await send()
        case .join:
            let conversation = chance(80) ? pick(groups) : room
            let user = anyone()
            let joined = await act("\(user) joins \(conversation)") {
                _ = try await store.join(conversation, user, change: MembershipChange(event: .memberJoined, notice: "in"))
            }
            if joined { lastChanged = (conversation, user) }
        case .invite:
            let group = pick(groups)
            let (user, by) = (anyone(), try await actor(in: group))
            await act("\(by.id) invites \(user) to \(group)") {
                _ = try await store.invite(user, to: group, by: by, notice: "invited")
            }
        case .approve:
            let group = pick(groups)
            let asking = try await store.database.read { connection in
                try connection.rows(
                    "SELECT user_id FROM join_requests WHERE conversation_id = ? ORDER BY user_id", group.rawValue,
                    as: { UserID(rawValue: $0.int(0)) })
            }
            let (user, by) = (asking.isEmpty || chance(10) ? anyone() : pick(asking), try await actor(in: group))
            let approved = await act("\(by.id) approves \(user) in \(group)") {
                _ = try await store.approveJoinRequest(of: user, to: group, by: by, notice: "approved")
            }
            if approved { lastChanged = (group, user) }
        case .addMember:
            let conversation = chance(80) ? pick(groups) : room
            let (user, role) = (anyone(), chance(20) ? MemberRole.admin : .member)
            let added = await act("\(user) added to \(conversation) as \(role)") {
                _ = try await store.addMember(
                    conversation, user, role: role, change: MembershipChange(event: .memberJoined, notice: "added"))
            }
            if added { lastChanged = (conversation, user) }
        case .leave:
            let conversation = chance(80) ? pick(groups) : room
            let user = try await someone(in: conversation, outsiders: 10)
            await act("\(user) leaves \(conversation)") {
                _ = try await store.removeMember(conversation, user, change: MembershipChange(event: .memberLeft, notice: "left"))
            }
        case .moderate: try await moderate()
        case .settings: try await changeSettings()
        case .block, .unblock:
            let (user, other) = (anyone(), chance(5) ? nil : anyone())
            let blocking = action == .block
            await act("\(user) \(blocking ? "blocks" : "unblocks") \(other ?? user)") {
                if blocking {
                    _ = try await store.block(user, other ?? user)
                } else {
                    _ = try await store.unblock(user, other ?? user)
                }
            }
        case .markRead:
            let conversation = chance(70) ? pick(groups) : (directs.isEmpty ? room : pick(directs))
            let user = try await someone(in: conversation, outsiders: 10)
            let seq = Int64.random(in: 0...40, using: &random)
            await act("\(user) reads \(conversation) to \(seq)") { _ = try await store.markRead(conversation, user, seq: seq) }
        case .edit:
            guard !messages.isEmpty else { break }
            let message = pick(messages)
            let editor = chance(85) ? message.sender : anyone()
            let text = "edit \(stepNumber)"
            await act("\(editor) edits \(message.id)") {
                _ = try await store.editMessage(
                    MessageEdit(conversationID: message.conversation, messageID: message.id, editor: editor, text: text))
            }
        case .delete:
            guard !messages.isEmpty else { break }
            let message = pick(messages)
            let by = chance(50) ? ActingUser(id: message.sender) : try await actor(in: message.conversation)
            await act("\(by.id) deletes \(message.id)") {
                _ = try await store.deleteMessage(
                    MessageDeletion(conversationID: message.conversation, messageID: message.id, by: by, notice: "deleted"))
            }
        case .deleteUser:
            let user = anyone()
            guard stepNumber > 40, deleted.count < 2, !deleted.contains(user) else { break }
            deleted.insert(user)
            await act("\(user) deleted") { _ = try await store.deleteUser(user) }
        case .createUser:
            guard users.count < 12 else { break }
            let name = "user\(users.count)"
            do {
                users.append(try await store.makeUser(name).id)
                note("\(name) created")
            } catch {
                problem("creating \(name) failed: \(error)")
            }
        case .failingJob: try await failingJob()
        case .failingStatement: try await failingStatement()
        }
        try await checkRosters()
    }

    /// A send by someone (a member, or anyone) to a group, the room or a one-to-one
    /// conversation, decided by the store and compared with what the rows say.
    func send() async throws {
        let conversation: ConversationID
        let sender: UserID
        let now = self.now
        if let (group, poster) = lastPost, chance(15) {
            // The last sender posts again soon after, as slow mode is there to stop.
            (conversation, sender) = (group, poster)
        } else if let (group, member) = lastChanged, chance(50) {
            // The member just let in, muted, unmuted, promoted, demoted (or who last posted
            // in a group whose settings changed) tries at once.
            (conversation, sender) = (group, member)
            lastChanged = nil
        } else if chance(60) {
            conversation = chance(85) ? pick(groups) : room
            let heldBack = try await heldBack(in: conversation, at: now)
            sender = !heldBack.isEmpty && chance(50) ? pick(heldBack) : try await someone(in: conversation, outsiders: 25)
        } else {
            let blocks = try await store.database.read { connection in
                try connection.rows(
                    "SELECT blocked_id, user_id FROM blocks WHERE user_id != blocked_id ORDER BY user_id, blocked_id",
                    as: { (UserID(rawValue: $0.int(0)), UserID(rawValue: $0.int(1))) })
            }
            let (a, b) = !blocks.isEmpty && chance(35) ? pick(blocks) : (anyone(), anyone())
            do {
                conversation = try await store.directConversation(a, b).id
            } catch {
                problem("the conversation of \(a) and \(b) failed: \(error)")
                return
            }
            if !directs.contains(conversation) { directs.append(conversation) }
            sender = chance(85) ? a : anyone()
        }
        let rows = try await store.database.read { connection in
            let head = try connection.first(
                "SELECT kind, slow_mode, last_seq FROM conversations WHERE id = ?", conversation.rawValue,
                as: { ($0.text(0), $0.int(1), $0.int(2)) })
            let member = try connection.first(
                "SELECT role, muted_until, restricted, last_posted_at FROM members WHERE conversation_id = ? AND user_id = ?",
                conversation.rawValue, sender.rawValue,
                as: {
                    SendRows.MemberRow(
                        role: $0.text(0), mutedUntil: $0.optionalInt(1), restricted: $0.bool(2), lastPostedAt: $0.optionalInt(3))
                })
            let blocked = try connection.scalar(
                """
                SELECT 1 FROM blocks b JOIN members m ON m.user_id = b.user_id
                WHERE m.conversation_id = ? AND b.blocked_id = ? AND b.user_id != b.blocked_id
                """,
                conversation.rawValue, sender.rawValue) != nil
            return head.map {
                SendRows(kind: $0.0, slowMode: $0.1, lastSeq: $0.2, member: member, blockedByTheOther: blocked)
            }
        }
        guard let rows else {
            problem("conversation \(conversation) has no row")
            return
        }
        if cachedNow.contains(conversation.rawValue) { cachedSends += 1 }
        let expected = rows.refusal(at: now)
        let what = "\(sender) sends to \(rows.kind) \(conversation)"
        do {
            let (message, _) = try await store.appendMessage(
                NewMessage(conversationID: conversation, senderID: sender, text: "message \(stepNumber)"))
            decisions["accepted", default: 0] += 1
            note("\(what): accepted as seq \(message.seq)")
            messages.append((message.id, conversation, sender))
            lastPost = (conversation, sender)
            if let expected { problem("\(what) was accepted; the rows refuse it: \(expected)") }
            if message.seq != rows.lastSeq + 1 {
                problem("\(what) got seq \(message.seq); the conversation's last was \(rows.lastSeq)")
            }
        } catch let error as StoreError {
            decisions[error.kind, default: 0] += 1
            note("\(what): \(error)")
            if error != expected {
                problem("\(what) was refused with \(error); the rows say \(expected.map { "\($0)" } ?? "accept it")")
            }
        } catch {
            problem("\(what) failed: \(error)")
        }
    }

    /// The members whom the rows keep from posting at `now` (muted, restricted, or slowed
    /// down), to send more often than chance would.
    func heldBack(in conversation: ConversationID, at now: Int64) async throws -> [UserID] {
        try await store.database.read { connection in
            try connection.rows(
                """
                SELECT m.user_id FROM members m JOIN conversations c ON c.id = m.conversation_id
                WHERE m.conversation_id = ?1 AND (m.muted_until > ?2 OR m.restricted
                    OR (c.kind = 'group' AND c.slow_mode > 0 AND m.role = 'member' AND m.last_posted_at > ?2 - c.slow_mode * 1000))
                ORDER BY m.user_id
                """,
                conversation.rawValue, now, as: { UserID(rawValue: $0.int(0)) })
        }
    }

    /// One moderation act in a group, by someone who may or may not take it.
    func moderate() async throws {
        let group = pick(groups)
        let action = pick(
            [ModerationAction.mute, .mute, .mute, .mute, .unmute, .unmute, .kick, .ban, .ban, .unban, .unban,
             .promote, .promote, .demote, .demote, .transfer])
        let by = try await actor(in: group)
        let target =
            action == .transfer && by.isServerAdministrator && chance(30) ? by.id : try await someone(in: group, outsiders: 25)
        var until: Timestamp?
        if action == .mute, !chance(40) {
            until = Timestamp(milliseconds: now + pick([-1_000, 1_000, 5_000, 20_000, 90_000]))
        } else if action == .ban, chance(50) {
            until = Timestamp(milliseconds: now + pick([5_000, 60_000]))
        }
        let act = ModerationAct(
            conversationID: group, by: by, action: action, target: target, until: until, notice: "\(action)")
        let done = await self.act("\(by.id)\(by.isServerAdministrator ? " (server admin)" : "") \(action) \(target) in \(group)") {
            _ = try await store.moderate(act)
        }
        if done { lastChanged = (group, target) }
    }

    /// A change of a group's settings (slow mode, newcomers, join policy) or info.
    func changeSettings() async throws {
        let group = pick(groups)
        let by = try await actor(in: group)
        var update = ConversationInfoUpdate()
        if chance(25) {
            update.title = "title \(stepNumber)"
        } else {
            if chance(70) { update.slowMode = ConfigDuration(seconds: Double(pick([0, 5, 30, 60]))) }
            if chance(40) { update.newMembers = pick(NewMemberPolicy.allCases) }
            if chance(30) { update.join = pick(JoinPolicy.allCases) }
            if update.settings.isEmpty { update.slowMode = ConfigDuration(seconds: 0) }
        }
        let done = await act("\(by.id) updates \(group): \(update)") {
            _ = try await store.updateInfo(group, update, by: by, notice: "updated")
        }
        let lastPoster = try await store.database.read { connection in
            try connection.scalar(
                """
                SELECT user_id FROM members WHERE conversation_id = ? AND last_posted_at IS NOT NULL
                ORDER BY last_posted_at DESC, user_id LIMIT 1
                """,
                group.rawValue)
        }
        if done, let lastPoster { lastChanged = (group, UserID(rawValue: lastPoster)) }
    }

    /// A write job that reads a conversation's roster, changes one of its members and the
    /// conversation, then throws: the batch is rolled back and run again, each job in a
    /// savepoint. Half the time the job throws in both runs (its savepoint is rolled back
    /// too); otherwise it throws in the first run only and changes nothing in the second,
    /// so that only the batch's rollback undoes what the cache heard.
    func failingJob() async throws {
        let conversation = chance(75) || directs.isEmpty ? pick(groups) : pick(directs)
        let members = try await members(conversation)
        guard !members.isEmpty else { return }
        let user = pick(members).user
        let role = pick(MemberRole.allCases).rawValue
        let mutedUntil: Int64? = pick([nil, now + 60_000, Int64.max])
        let (restricted, firstRunOnly, now, step) = (chance(50), chance(50), self.now, stepNumber)
        let (store, runs) = (self.store, Shared(0))
        let result = await outcome {
            try await store.database.write { context in
                let run = runs.update { count in
                    count += 1
                    return count
                }
                if firstRunOnly && run > 1 { return }
                let connection = context.connection
                _ = try store.rosters.roster(conversation, connection)
                try connection.execute(
                    """
                    UPDATE members SET role = ?, muted_until = ?, restricted = ?, last_posted_at = ?
                    WHERE conversation_id = ? AND user_id = ?
                    """,
                    role, mutedUntil, restricted, now, conversation.rawValue, user.rawValue)
                try connection.execute(
                    "UPDATE conversations SET slow_mode = slow_mode + 7, last_seq = last_seq + 1 WHERE id = ?",
                    conversation.rawValue)
                throw Deliberate(index: step)
            }
        }
        note("a job changes \(user) in \(conversation), then throws\(firstRunOnly ? " the first time" : "")")
        switch result {
        case .success where firstRunOnly && runs.value == 2: return
        case .failure(let error) where !firstRunOnly && error as? Deliberate == Deliberate(index: step): return
        default: problem("the failing job ended with \(result) after \(runs.value) runs")
        }
    }

    /// A write job whose statement changes some members of a conversation, then fails on
    /// the last; the job goes on and commits. Compared inside the job too, before the
    /// commit.
    func failingStatement() async throws {
        let conversation = chance(75) || directs.isEmpty ? pick(groups) : pick(directs)
        let members = try await members(conversation)
        guard members.count >= 2, let last = members.last?.user else { return }
        let (now, store) = (self.now, self.store)
        let result = await outcome {
            try await store.database.write { context -> (failed: Bool, agreed: Bool) in
                let connection = context.connection
                _ = try store.rosters.roster(conversation, connection)
                var failed = false
                do {
                    try connection.execute(
                        """
                        UPDATE members SET muted_until = CASE WHEN user_id = ? THEN abs(?) ELSE ? END,
                            role = 'member', restricted = 1, last_posted_at = ?
                        WHERE conversation_id = ?
                        """,
                        last.rawValue, Int64.min, Int64.max, now, conversation.rawValue)
                } catch is SQLiteError {
                    failed = true
                }
                return (failed, try store.rosters.agreesWithDatabase(conversation, connection))
            }
        }
        note("a statement changes the members of \(conversation), then fails")
        switch result {
        case .success(let (failed, agreed)):
            if !failed { problem("the failing statement did not fail") }
            if !agreed { problem("after a statement failed part-way, \(conversation)'s roster differs from its rows") }
        case .failure(let error):
            problem("the job with a failing statement failed: \(error)")
        }
    }

    /// Compares every cached roster with its rows, then puts some conversations' rosters
    /// in the cache (about half, chosen by the seed) so that the next step finds them
    /// there.
    func checkRosters() async throws {
        let all = groups + [room] + directs
        let warm = all.filter { _ in chance(50) }
        let store = self.store
        let (checked, disagreeing, cached) = try await store.database.write {
            context -> (Int, [Int64], Set<Int64>) in
            let cached = store.rosters.cachedConversations.sorted()
            let disagreeing = try cached.filter {
                try !store.rosters.agreesWithDatabase(ConversationID(rawValue: $0), context.connection)
            }
            for conversation in warm { _ = try store.rosters.roster(conversation, context.connection) }
            return (cached.count, disagreeing, store.rosters.cachedConversations)
        }
        comparisons += checked
        cachedNow = cached
        if !disagreeing.isEmpty { problem("the cached rosters of \(disagreeing) differ from their rows") }
    }

    // MARK: Outcomes

    /// Runs one operation and returns whether it went through; a refusal or a missing
    /// thing is an outcome like any other, anything else a failure of the test.
    @discardableResult
    func act(_ what: String, _ body: () async throws -> Void) async -> Bool {
        do {
            try await body()
            note("\(what): done")
            return true
        } catch let error as StoreError {
            switch error {
            case .internalFailure, .closed: problem("\(what) failed: \(error)")
            default: note("\(what): \(error.kind)")
            }
        } catch {
            problem("\(what) failed: \(error)")
        }
        return false
    }

    func note(_ line: String) {
        log.append("step \(stepNumber) at +\(now - TestClock.start) ms: \(line)")
        if log.count > 400 { log.removeFirst(200) }
    }

    /// Records a failure with the run's seed and its last steps, and ends the run.
    func problem(_ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        failed = true
        Issue.record(
            "seed \(seed), step \(stepNumber): \(message)\nlast steps:\n\(log.suffix(15).joined(separator: "\n"))",
            sourceLocation: sourceLocation)
    }
}
