import IMProtocol

/// What the write jobs of one batch transaction leave for its end: feed events without
/// their positions yet, ended logins, poll claims, and actions to run once it commits.
///
/// Positions (and revocation epochs) are handed out only when the batch is done, from one
/// counter row taken just before COMMIT (`PostgresStore+Batch.swift`): so they ascend in
/// commit order across every node writing to the database. Until then a job refers to its
/// events by their index here. Used on the writer's thread only.
final class PostgresBatch {
    /// One feed event waiting for its position.
    struct Event {
        enum Target {
            /// An event of a conversation, read by its members through membership.
            case conversation(ConversationID, messageID: MessageID?)
            /// An event stored for these users only (`user_events`).
            case users(conversationID: ConversationID?)
        }

        var target: Target
        var type: EventType
        var payload: String?
        var createdAt: Int64
        /// Whose feeds it reaches now, ascending.
        var recipients: [UserID]
        /// The event as a message, for parked polls on this node.
        var message: FeedMessage?
        /// Members who read the conversation from this event on.
        var joins: [UserID] = []
        /// Members whose membership ends at this event (they still read it).
        var leaves: [Leave] = []
        /// An edit's replaced text, kept for those who left before it (`FeedVisibility`):
        /// stored with this event's position once it has one.
        var replaced: Version?
    }

    typealias Version = MessageVersion

    /// An ended membership, to be kept in `former_members`.
    struct Leave {
        var user: UserID
        /// Where they started reading: a stored position, or an event of this batch.
        var joined: Start
        /// The conversation's last message when they joined (`members.joined_seq`).
        var joinedSeq: Int64
    }

    enum Start {
        case position(Int64)
        case event(Int)
    }

    /// Logins ended: some by id, or every login of an account.
    typealias Revocation = LoginRevocation

    var events: [Event] = []
    var revocations: [Revocation] = []
    /// Event polls claimed for this node: login id and the claim's generation.
    var claims: [(tokenID: Int64, generation: Int64)] = []
    var afterCommit: [() -> Void] = []

    /// Where a job started, so that a job that fails leaves nothing behind.
    struct Mark {
        fileprivate var events: Int
        fileprivate var revocations: Int
        fileprivate var claims: Int
        fileprivate var afterCommit: Int
    }

    var mark: Mark {
        Mark(events: events.count, revocations: revocations.count, claims: claims.count, afterCommit: afterCommit.count)
    }

    /// Forgets what a failed job added.
    func rollBack(to mark: Mark) {
        events.removeSubrange(mark.events...)
        revocations.removeSubrange(mark.revocations...)
        claims.removeSubrange(mark.claims...)
        afterCommit.removeSubrange(mark.afterCommit...)
    }

    /// True when nothing needs a counter or a notification.
    var isEmpty: Bool { events.isEmpty && revocations.isEmpty && claims.isEmpty }

    /// The event of this batch at which `user` joined the conversation, if one did.
    func pendingJoin(of user: UserID, in conversationID: ConversationID) -> Int? {
        events.indices.last { index in
            if case .conversation(conversationID, _) = events[index].target { return events[index].joins.contains(user) }
            return false
        }
    }
}

/// A write job's view of its batch: the batch's connection, inside the job's savepoint,
/// and the batch's pending feed events.
final class PostgresWriteContext: StoreWriteContext {
    let connection: PostgresConnection
    let batch: PostgresBatch

    init(connection: PostgresConnection, batch: PostgresBatch) {
        self.connection = connection
        self.batch = batch
    }

    /// Adds a feed event; returns its index in the batch.
    @discardableResult
    func add(_ event: PostgresBatch.Event) -> Int {
        batch.events.append(event)
        return batch.events.count - 1
    }

    /// Runs `action` on the writer's thread once the batch has committed, before the
    /// callers resume; never when this job throws or the batch fails.
    func afterCommit(_ action: @escaping () -> Void) { batch.afterCommit.append(action) }
}
