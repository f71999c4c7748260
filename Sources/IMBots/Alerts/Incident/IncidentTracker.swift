import IMProtocol

/// Turns notifications, timer ticks and acknowledgements into what to do with each
/// group's living message: post it, edit it, reply to it.
///
/// Pure: time is passed in (wall milliseconds from an injected clock) and the state is
/// ``book``, which the runner keeps in the bot's journal. The runner calls
/// ``advance(now:)`` at ``nextDeadline`` so held resolves are shown on time.
public struct IncidentTracker: Sendable {
    /// Timing and bounds.
    public var policy: IncidentPolicy
    /// How messages and replies read.
    public var renderer: IncidentRenderer
    public private(set) var book: IncidentBook

    /// Starts from `book` (empty, or as the journal kept it).
    public init(policy: IncidentPolicy = IncidentPolicy(), renderer: IncidentRenderer = IncidentRenderer(),
                book: IncidentBook = IncidentBook()) {
        self.policy = policy
        self.renderer = renderer
        self.book = book
    }

    /// Folds a (deduplicated) notification into its group's incident.
    public mutating func receive(_ notification: AlertNotification, now: Int64) -> [IncidentEffect] {
        var incident: Incident
        if let existing = book[notification.groupKey], !(existing.isClosed && notification.status == .firing) {
            incident = existing
        } else if notification.status == .firing {
            // A new incident, also when a closed one of the same group fires again: the
            // old message keeps showing how that one ended.
            incident = Incident(opening: notification, now: now)
        } else {
            // A resolve for a group never seen firing (state lost, or a route added while
            // the alert fired): nothing to show it on, and nothing worth a new message.
            return []
        }
        let changes = incident.fold(notification, now: now, hold: policy.flapHold, maxInstances: policy.maxInstances)
        guard !incident.instances.isEmpty else { return [] }
        let effects = render(&incident, changes: changes)
        book[incident.groupKey] = incident
        book.prune(now: now, policy: policy)
        return effects
    }

    /// Makes final the held resolves whose time has come.
    public mutating func advance(now: Int64) -> [IncidentEffect] {
        var effects: [IncidentEffect] = []
        for key in book.incidents.keys.sorted() {
            guard var incident = book[key] else { continue }
            let changes = incident.advance(now: now, hold: policy.flapHold)
            guard !changes.isEmpty else { continue }
            effects += render(&incident, changes: changes)
            book[key] = incident
        }
        book.prune(now: now, policy: policy)
        return effects
    }

    /// When ``advance(now:)`` has something to do next; nil when no resolve is held.
    public var nextDeadline: Int64? {
        book.incidents.values.compactMap { $0.nextDeadline(hold: policy.flapHold) }.min()
    }

    /// Records the id of a posted living message.
    public mutating func recordPosted(groupKey: String, messageID: MessageID) {
        book[groupKey]?.messageID = messageID
    }

    /// `/ack` in reply to a living message: shows who acknowledged it. Nil when no
    /// incident has that message; empty when it was already acknowledged by `user`.
    public mutating func acknowledge(messageID: MessageID, by user: String, now: Int64) -> [IncidentEffect]? {
        guard var incident = book.incident(messageID: messageID) else { return nil }
        guard incident.acknowledge(by: user, now: now) else { return [] }
        let effects = render(&incident, changes: [])
        book[incident.groupKey] = incident
        return effects
    }

    /// Folds what Alertmanager holds now for `groupKey` (``Incident/reconcile(present:silences:asked:now:)``).
    public mutating func reconcile(groupKey: String, present: [String: [String]], silences: [IncidentSilence],
                                   asked: Set<String>, now: Int64) -> [IncidentEffect] {
        guard var incident = book[groupKey], !incident.isClosed else { return [] }
        let changes = incident.reconcile(present: present, silences: silences, asked: asked, now: now)
        return store(&incident, changes: changes, now: now)
    }

    /// `/resolve` in reply to a living message: closes its incident by hand. Nil when no
    /// incident has that message; empty when it is closed already.
    public mutating func resolve(messageID: MessageID, by user: String, now: Int64) -> [IncidentEffect]? {
        guard var incident = book.incident(messageID: messageID) else { return nil }
        guard let changes = incident.resolve(by: user, now: now) else { return [] }
        return store(&incident, changes: changes, now: now)
    }

    /// A silence made from chat: shown on the living message of `groupKey` at once.
    public mutating func noteSilence(groupKey: String, _ silence: IncidentSilence, matchers: [SilenceMatcher],
                                     now: Int64) -> [IncidentEffect] {
        guard var incident = book[groupKey], incident.noteSilence(silence, matchers: matchers, now: now) else { return [] }
        return store(&incident, changes: [], now: now)
    }

    /// Renders `incident` after `changes` and keeps it; the effects, none when its message
    /// reads the same and nothing changed.
    private mutating func store(_ incident: inout Incident, changes: [IncidentChange], now: Int64) -> [IncidentEffect] {
        let effects = render(&incident, changes: changes)
        book[incident.groupKey] = incident
        book.prune(now: now, policy: policy)
        return effects
    }

    /// The message for the incident's current state, and a reply for each change.
    private func render(_ incident: inout Incident, changes: [IncidentChange]) -> [IncidentEffect] {
        let text = renderer.message(for: incident)
        var effects: [IncidentEffect] = []
        if let messageID = incident.messageID {
            if text != incident.renderedText {
                effects.append(.edit(groupKey: incident.groupKey, messageID: messageID, text: text))
            }
        } else {
            effects.append(.post(groupKey: incident.groupKey, clientMessageID: incident.clientMessageID, text: text))
        }
        let isFirstPost = incident.renderedText == nil
        incident.renderedText = text
        // The first message already lists the alerts it opened with: no "new" reply.
        for change in changes {
            if isFirstPost, case .newAlerts = change { continue }
            if let reply = renderer.reply(for: change, in: incident) {
                effects.append(.reply(groupKey: incident.groupKey, to: incident.messageID, text: reply))
            }
        }
        return effects
    }
}
