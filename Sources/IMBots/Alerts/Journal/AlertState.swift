import IMProtocol

/// What the alert bridge of one bot keeps between runs, as part of its journal's state:
/// the inbox's stored deliveries, the dedupe keys seen, every incident and its living
/// message, the dead-man's switches and the silences waiting for `/confirm`.
///
/// Changed only through the bot's journal (`JournalState.apply(_:)`): the inbox stores
/// a delivery (`.webhook`), the desk records what it did (`.alerts`), the outbox records
/// a posted living message (`.incidentPosted`).
struct AlertState: Sendable, Hashable, Codable {
    /// Deliveries answered 2xx and not processed yet, oldest first.
    var inbox: [WebhookDelivery] = []
    /// The number the next stored delivery gets.
    var nextDelivery: Int64 = 1
    /// Dedupe keys seen, per rule.
    var seen: [String: SeenSet] = [:]
    /// Incidents by book: one book per incident action and conversation (``IncidentBookKey``).
    var books: [String: IncidentBook] = [:]
    /// Dead-man's switches, per rule (a webhook rule's `quiet`).
    var switches: [String: DeadMansSwitch] = [:]
    /// Silences proposed with `/silence`, waiting for `/confirm`.
    var drafts = SilenceConfirmations()

    /// Keeps a delivery and the dedupe keys it was admitted with.
    mutating func store(_ delivery: WebhookDelivery) {
        inbox.append(delivery)
        nextDelivery = max(nextDelivery, delivery.number + 1)
        for mark in delivery.marks {
            let lifetime = Duration.milliseconds(mark.lifetime)
            // A reload that changed the rule's `for:` starts its keys over.
            if seen[mark.rule]?.lifetime != lifetime { seen[mark.rule] = SeenSet(lifetime: lifetime) }
            _ = seen[mark.rule]?.insert(mark.key, now: delivery.receivedAt)
        }
    }

    /// Applies what the desk did (the outbox messages and state variables are the
    /// journal state's own business).
    mutating func apply(_ change: AlertChange) {
        if let number = change.delivery { inbox.removeAll { $0.number == number } }
        for update in change.incidents {
            // In place: a copy of a book would copy every incident in it.
            if var incident = update.incident {
                // The outbox may have recorded the living message's id after the desk read
                // the incident: keep it (the same incident has the same client id).
                if incident.messageID == nil, let known = books[update.book]?[update.groupKey],
                   known.clientMessageID == incident.clientMessageID {
                    incident.messageID = known.messageID
                }
                books[update.book, default: IncidentBook()][update.groupKey] = incident
            } else {
                books[update.book]?[update.groupKey] = nil
                if books[update.book]?.incidents.isEmpty == true { books[update.book] = nil }
            }
        }
        for (rule, state) in change.switches { switches[rule] = state }
        for rule in change.droppedSwitches { switches[rule] = nil }
        if let drafts = change.drafts { self.drafts = drafts }
    }

    /// Notes the id of a posted living message, if the incident is still the one posted.
    mutating func posted(_ post: IncidentPost) {
        guard books[post.book]?[post.groupKey]?.messageID == nil else { return }
        books[post.book]?[post.groupKey]?.messageID = post.messageID
    }

    /// The living message of the incident `ref` names, once posted.
    func messageID(of ref: IncidentRef) -> MessageID? {
        books[ref.book]?[ref.groupKey]?.messageID
    }

    /// The incident whose living message is `messageID`, with its book.
    func incident(messageID: MessageID) -> (book: String, incident: Incident)? {
        for (key, book) in books.sorted(by: { $0.key < $1.key }) {
            if let incident = book.incident(messageID: messageID) { return (key, incident) }
        }
        return nil
    }

    /// Whether nothing is kept (a bot without webhooks).
    var isEmpty: Bool { self == AlertState() }

    private enum Key: String, CodingKey {
        case inbox, seen, books, switches, drafts
        case nextDelivery = "next_delivery"
    }

    init() {}

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        inbox = try container.decodeIfPresent([WebhookDelivery].self, forKey: .inbox) ?? []
        nextDelivery = try container.decodeIfPresent(Int64.self, forKey: .nextDelivery) ?? 1
        seen = try container.decodeIfPresent([String: SeenSet].self, forKey: .seen) ?? [:]
        books = try container.decodeIfPresent([String: IncidentBook].self, forKey: .books) ?? [:]
        switches = try container.decodeIfPresent([String: DeadMansSwitch].self, forKey: .switches) ?? [:]
        drafts = try container.decodeIfPresent(SilenceConfirmations.self, forKey: .drafts) ?? SilenceConfirmations()
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        if !inbox.isEmpty { try container.encode(inbox, forKey: .inbox) }
        try container.encode(nextDelivery, forKey: .nextDelivery)
        if !seen.isEmpty { try container.encode(seen, forKey: .seen) }
        if !books.isEmpty { try container.encode(books, forKey: .books) }
        if !switches.isEmpty { try container.encode(switches, forKey: .switches) }
        if drafts.count > 0 { try container.encode(drafts, forKey: .drafts) }
    }
}

/// A webhook delivery the inbox stored: the body as received, and what it was admitted to.
struct WebhookDelivery: Sendable, Hashable, Codable {
    /// Its number in the bot's inbox, from 1: the scope of its messages' client ids.
    var number: Int64
    /// The listener path it came in on.
    var path: String
    /// The route's format when it came in.
    var format: WebhookFormat
    /// The JSON body, as received (decoded again when processed: decoding is deterministic).
    var body: String
    /// When it was received, wall milliseconds: the time its processing uses, so that a
    /// delivery processed again after a crash gives the same result.
    var receivedAt: Int64
    /// The rules it fired, in rule order (rules whose dedupe found it a repeat left out).
    var rules: [String]
    /// The dedupe keys it recorded.
    var marks: [DedupeMark]
}

/// A dedupe key a delivery recorded for a rule.
struct DedupeMark: Sendable, Hashable, Codable {
    var rule: String
    /// The hashed key (`DedupeKey.key(for:)`).
    var key: String
    /// How long the key suppresses repeats, in milliseconds.
    var lifetime: Int64
}

/// What the alert desk did in one step (a delivery processed, a timer, a command).
struct AlertChange: Sendable, Equatable, Codable {
    /// The delivery this step processed, if any: it leaves the inbox.
    var delivery: Int64?
    /// Incidents changed (nil: dropped).
    var incidents: [IncidentUpdate] = []
    /// Dead-man's switches as they are now.
    var switches: [String: DeadMansSwitch] = [:]
    /// Switches of rules that are gone.
    var droppedSwitches: [String] = []
    /// The pending silences as they are now, when they changed.
    var drafts: SilenceConfirmations?
    /// Messages to send (never shed): posts, edits and replies of living messages, alerts.
    var messages: [PendingMessage] = []
    /// Changes of the rules' state variables (`set`, `increment` in webhook rules).
    var state: [StateOperation] = []

    /// Whether it changes nothing but the inbox.
    var isEmpty: Bool {
        incidents.isEmpty && switches.isEmpty && droppedSwitches.isEmpty && drafts == nil && messages.isEmpty
            && state.isEmpty
    }
}

/// One incident as a step left it.
struct IncidentUpdate: Sendable, Hashable, Codable {
    var book: String
    var groupKey: String
    /// Nil when the incident was dropped (pruned).
    var incident: Incident?

    /// The incidents that differ between two states of a book, given the groups a step
    /// touched (the notification's, and those of its effects): only those are compared,
    /// and the book is scanned for dropped incidents only when its size says some went.
    static func changes(in book: String, from old: IncidentBook, to new: IncidentBook,
                        touched: Set<String>) -> [IncidentUpdate] {
        var updates: [IncidentUpdate] = []
        var added = 0
        for key in touched.sorted() {
            guard let incident = new[key] else { continue }
            if old[key] == nil { added += 1 }
            if old[key] != incident { updates.append(IncidentUpdate(book: book, groupKey: key, incident: incident)) }
        }
        if new.incidents.count != old.incidents.count + added {
            for key in old.incidents.keys.sorted() where new[key] == nil {
                updates.append(IncidentUpdate(book: book, groupKey: key, incident: nil))
            }
        }
        return updates
    }
}

/// Which incident a message of the outbox belongs to, and what it does to its living message.
struct IncidentRef: Sendable, Hashable, Codable {
    enum Part: String, Sendable, Hashable, Codable {
        /// Posts the living message (its id is recorded once sent).
        case post
        /// Edits the living message.
        case edit
        /// A short reply to the living message.
        case reply
    }

    var book: String
    var groupKey: String
    var part: Part
}

/// A living message the outbox posted.
struct IncidentPost: Sendable, Hashable, Codable {
    var book: String
    var groupKey: String
    var messageID: MessageID
}

/// The key of an incident book: the rule, the index of its `incident` action and the
/// conversation (a `to:` template may send one rule's incidents to several).
struct IncidentBookKey: Sendable, Hashable, CustomStringConvertible {
    var rule: String
    var action: Int
    var conversation: String

    /// `rule#action#conversation`; rule names never hold `#`.
    var description: String { "\(rule)#\(action)#\(conversation)" }

    init(rule: String, action: Int, conversation: String) {
        self.rule = rule
        self.action = action
        self.conversation = conversation
    }

    /// Reads a key back; nil for text that is not one.
    init?(_ text: String) {
        let parts = text.split(separator: "#", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let action = Int(parts[1]) else { return nil }
        self.init(rule: String(parts[0]), action: action, conversation: String(parts[2]))
    }
}
