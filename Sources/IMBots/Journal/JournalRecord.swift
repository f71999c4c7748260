import IMProtocol
import Templates

/// One change to what a bot keeps between runs, as appended to its journal.
///
/// Records are applied in order to a `JournalState`; replaying them over the last
/// snapshot gives back the state the bot had. Each carries a sequence number, so records
/// a snapshot already holds are skipped after a compaction that was cut short.
///
/// New kinds of state (strikes, cases) add cases here and to `JournalState.apply(_:)`, as
/// the alert bridge did; older runners refuse a journal with a kind they do not know
/// instead of dropping it.
struct JournalRecord: Sendable, Equatable {
    enum Change: Sendable, Equatable {
        /// An event was handled: its state changes and the messages it decided.
        case handled(position: Int64, state: [StateOperation], messages: [PendingMessage])
        /// Messages queued by something other than a feed event (a webhook alert).
        case queued([PendingMessage])
        /// A feed event taken over by its conversation's lane, to be handled there; the
        /// feed may move past it.
        case accepted(Event)
        /// A message left the outbox: sent, given up or shed.
        case done(clientMessageID: String)
        /// The cursor the event stream resumes from.
        case cursor(String)
        /// The server forgot the cursor: positions start over.
        case resync
        /// The avatar file last uploaded, by its SHA-256.
        case avatar(String)
        /// Strikes, cases, verifications and trigger times (`IMBots/Moderation/State`).
        case moderation(ModerationChange)
        /// A webhook delivery the inbox stored; its sender is answered 2xx once this
        /// record is synced.
        case webhook(WebhookDelivery)
        /// What the alert bridge did in one step: a delivery processed, a held resolve
        /// shown, a dead-man's switch, a command.
        case alerts(AlertChange)
        /// The outbox posted an incident's living message.
        case incidentPosted(IncidentPost)
        /// A Matrix bot's direct chat made, or a room's slow mode set (``MatrixState``).
        case matrix(MatrixChange)
    }

    var sequence: UInt64
    var change: Change
}

/// A change to the rules' state variables, applied to the state as it is when the event
/// finishes (so that events handled side by side never lose each other's updates).
enum StateOperation: Sendable, Equatable, Codable {
    /// `set`: the key holds this value.
    case set(path: [String], value: TemplateValue)
    /// `increment`: the number at the key grows by this much (a missing key counts as 0).
    case add(path: [String], amount: Int)

    /// Applies the change to `state`.
    func apply(to state: inout [String: TemplateValue]) {
        switch self {
        case .set(let path, let value):
            StatePath.set(value, at: path, in: &state)
        case .add(let path, let amount):
            let next: TemplateValue
            switch StatePath.value(at: path, in: state) {
            case .int(let value)?: next = .int(value &+ amount)
            case .double(let value)?: next = .double(value + Double(amount))
            case .string(let text)? where Int(text) != nil: next = .int((Int(text) ?? 0) &+ amount)
            default: next = .int(amount)
            }
            StatePath.set(next, at: path, in: &state)
        }
    }
}
