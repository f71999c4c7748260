import IMProtocol

/// One engine under the store's shared body: how it reads, how it writes, and the few
/// things its SQL and errors say differently (the dialect).
///
/// Every domain (accounts, invitations, moderation, …) is written once, in `Body/`, as
/// extensions of this protocol generic over the engine; each engine conforms once
/// (`SQLiteStore`, `PostgresStore`) and keeps what really differs: its writer (SQLite's
/// group commit on one thread, PostgreSQL's batches with their lock order), the feed
/// read, the cluster feed, and the hooks below. The protocol is internal; its
/// extensions' public methods are the engines' `IMStorage` conformances. Generic code
/// over a concrete engine is specialised by the compiler, so the shared body costs no
/// boxing on either engine.
protocol StoreEngine: AnyObject, Sendable {
    associatedtype Connection: StoreConnection
    associatedtype WriteContext: StoreWriteContext<Connection>

    var clock: @Sendable () -> Timestamp { get }
    /// Tells the feed observers of each commit.
    var notifier: FeedNotifier { get }

    /// Runs `body` on a read connection (each statement sees the newest commit).
    func read<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T

    /// Runs `body` as a write job of the engine's next batch; `lockOrder` is the
    /// conversation whose row the job locks first, if any (PostgreSQL's lock order; the
    /// SQLite writer, alone, needs none).
    func write<T: Sendable>(lockOrder: ConversationID?, _ body: @escaping @Sendable (WriteContext) throws -> T)
        async throws -> T

    // MARK: Hooks the shared body calls (where the engines keep members and feeds apart)

    /// A member's row, nil when not a member (SQLite reads its writer's roster cache).
    func memberState(_ conversationID: ConversationID, _ user: UserID, _ connection: Connection) throws -> MemberState?

    /// An account's username, nil when there is none (SQLite caches them: they never change).
    func username(_ id: UserID, _ connection: Connection) throws -> String?

    /// Adds a member in a write job and announces them; false when already one. The
    /// member reads the conversation from the announcement on.
    func addMember(
        _ context: WriteContext, _ conversationID: ConversationID, _ userID: UserID, role: MemberRole,
        restricted: Bool, change: MembershipChange, at now: Timestamp
    ) throws -> Bool

    /// Removes a member in a write job after telling everyone, the member included;
    /// false when not one.
    func removeMember(
        _ context: WriteContext, _ conversationID: ConversationID, _ userID: UserID, change: MembershipChange,
        at now: Timestamp
    ) throws -> Bool

    /// The feed position the next event will take: where a member added without an
    /// announcing event (a direct conversation's two sides) starts reading.
    func nextFeedPosition(_ context: WriteContext) throws -> Int64

    /// Writes a membership notice (when the change has one) and its event for every
    /// member; with `tellingOutsider`, `member` (not a member before or after) gets the
    /// event in their own feed too.
    func announce(
        _ context: WriteContext, _ conversationID: ConversationID, member: UserID, change: MembershipChange,
        at now: Timestamp, tellingOutsider: Bool
    ) throws

    /// Whether `sender` may post in the conversation now (muted, a restricted newcomer,
    /// slowed down when `slowed`, blocked by the other side of a one-to-one conversation).
    func checkPosting(
        _ sender: MemberState, in conversationID: ConversationID, at now: Timestamp, slowed: Bool,
        _ connection: Connection
    ) throws

    /// Counts `bytes` against the account's `quota` for today; `.quotaExceeded` writes nothing.
    func chargeQuota(_ user: UserID, bytes: Int, _ quota: MessageQuota, at now: Timestamp, _ connection: Connection)
        throws

    /// Appends a message's row (next number, last message, time) without its event.
    func appendMessage(_ context: WriteContext, _ new: NewMessage, at now: Timestamp) throws -> Message

    /// Appends a message (a notice, say) and puts it in its members' feeds.
    func post(_ context: WriteContext, _ new: NewMessage, at now: Timestamp) throws -> Message

    /// Stores an event of the conversation for `recipients` (its members when nil); with
    /// `replacing`, the text an edit replaced, kept as of the event's position.
    func appendEvent(
        _ context: WriteContext, _ type: EventType, in conversationID: ConversationID, messageID: MessageID?,
        payload: EventPayload?, recipients: [UserID]?, replacing: MessageVersion?, at now: Timestamp
    ) throws

    /// Drops the kept versions of a deleted message (PostgreSQL: those of its batch too).
    func forgetVersions(of message: MessageID, _ context: WriteContext) throws

    /// Notes logins ended in a write job (PostgreSQL logs them for the other nodes' caches).
    func logRevocation(_ revocation: LoginRevocation, _ context: WriteContext)

    /// Drops the log of ended logins from before `before` (PostgreSQL's; the nodes cache
    /// logins no longer than that).
    func pruneRevocations(before: Timestamp, _ context: WriteContext) throws

    /// Stores one event in the feeds of `users` only.
    func appendUserEvent(
        _ context: WriteContext, type: EventType, users: [UserID], conversationID: ConversationID?,
        payload: EventPayload, at: Timestamp
    ) throws

    /// An account's name changed (SQLite's name cache follows).
    func usernameChanged(_ id: UserID, to name: String)

    // MARK: Dialect

    /// True when `error` is the engine's UNIQUE (or primary key) violation.
    static func isUniqueViolation(_ error: any Error) -> Bool

    /// What a write job throws when another node's commit took a unique key it was about
    /// to write: PostgreSQL runs the job again; SQLite's one writer never meets it.
    static var runAgain: any Error { get }

    /// A list of texts bound as one parameter (PostgreSQL's `text[]`, SQLite's JSON).
    static func textList(_ values: [String]) -> any StoreBindable

    /// The SQL of a relation `list(value, n)` of the texts a `textList` parameter
    /// (`placeholder`) holds, numbered from 1: for `FROM` and `IN (SELECT value FROM …)`.
    static func textRows(_ placeholder: String) -> String
}

extension StoreEngine {
    /// A write job that locks no conversation first.
    func write<T: Sendable>(_ body: @escaping @Sendable (WriteContext) throws -> T) async throws -> T {
        try await write(lockOrder: nil, body)
    }
}

/// What a write job is given: the connection of the writer's open transaction.
protocol StoreWriteContext<Connection>: AnyObject {
    associatedtype Connection: StoreConnection
    var connection: Connection { get }
}

/// Logins ended: one, or every login of an account.
enum LoginRevocation {
    case token(Int64)
    case user(UserID)
}
