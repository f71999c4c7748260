import IMProtocol

/// The one place a run is kept, whichever way it came in: the audit lines and counters of
/// what its rules did, its journal record (the state it changed and the messages it
/// decided, in one record), the offer of those messages to the outbox, and the count of
/// a handled feed event.
///
/// ``BotRun`` keeps feed events, `schedule` and `quiet` triggers and the replies of
/// command taps and verifications here (`handled` records); ``AlertDesk`` its deliveries,
/// timer steps and command steps (`alerts` records, an incident change with its
/// messages); ``BotHandle/queueAlert(_:)`` a service's alert; the supervisor the messages
/// a last run left. A message the outbox refuses (its conversation's queue full of
/// messages that may not be shed) is marked done and reported here, never left pending
/// unsent; a reply that meets a full queue is shed, and reported, by the outbox.
struct RunLedger: Sendable {
    let parts: BotParts
    let outbox: Outbox

    /// What fired in one run: the rules that matched, and what their actions did.
    struct Fired: Sendable {
        var rules: [String]
        var report: ActionReport
    }

    /// Audits and counts `fired` (`event`: the feed event it answered), journals `change`
    /// (nil: nothing to keep), offers its messages and, for a feed event's `handled`
    /// record, counts the event handled. `version`: the rules' version it ran under.
    /// Returns the messages the outbox refused.
    @discardableResult
    func keep(_ change: JournalRecord.Change?, fired: [Fired] = [], event: Event? = nil,
              version: String) -> [PendingMessage] {
        for run in fired {
            for rule in run.rules { parts.metrics.count(bot: parts.name, rule: rule, .matched) }
            parts.reporter.record(run.report, event: event, version: version)
        }
        guard let change else { return [] }
        parts.journal.record(change)
        let refused = offer(change.messages, version: version)
        if case .handled(let position, _, _) = change, position > 0 { parts.metrics.eventHandled(bot: parts.name) }
        return refused
    }

    /// Offers messages the journal holds to the outbox; those it refuses are marked done
    /// and reported. Returns them.
    @discardableResult
    func offer(_ messages: [PendingMessage], version: String) -> [PendingMessage] {
        let refused = outbox.offer(messages)
        for message in refused {
            parts.journal.record(.done(clientMessageID: message.clientMessageID))
            parts.reporter.refused(message, version: version)
        }
        return refused
    }
}

extension JournalRecord.Change {
    /// The messages the record puts in the outbox.
    var messages: [PendingMessage] {
        switch self {
        case .handled(_, _, let messages), .queued(let messages): messages
        case .alerts(let change): change.messages
        default: []
        }
    }
}
