import IMProtocol

/// Feed events waiting for their conversation's earlier ones: one lane per
/// conversation, for events whose rules call out over HTTP and the events of that
/// conversation behind them.
///
/// An event enters a lane journaled (`accepted`), so the feed's cursor may move past it;
/// after a restart the lane picks it up again. A lane holds at most ``capacity``
/// events and all lanes together ``totalCapacity``; past that the oldest waiting event is
/// dropped, audited and counted (`switchboard_bot_shed_total{kind="event"}`).
final class ConversationLanes: Sendable {
    private let queues: WorkQueues<Event>
    private let parts: BotParts
    private let session: BotSession

    static let capacity = 50
    static let totalCapacity = 1000

    init(parts: BotParts, session: BotSession) {
        self.parts = parts
        self.session = session
        queues = WorkQueues(capacity: { ConversationLanes.capacity }) { _ in true }
    }

    /// Whether `event`'s conversation has a lane now (its events must queue behind it).
    func isBusy(with event: Event) -> Bool {
        queues.isBusy(Self.key(event))
    }

    /// Journals `event` as taken over, and queues it in its conversation's lane.
    func accept(_ event: Event) {
        guard queues.count < Self.totalCapacity else {
            parts.reporter.shed(event, cap: Self.totalCapacity, version: parts.rules.now.definition.version)
            return
        }
        parts.journal.record(.accepted(event))
        resume(event)
    }

    /// Queues an event the journal already holds as taken over.
    func resume(_ event: Event) {
        let offer = queues.offer(event, key: Self.key(event))
        for dropped in offer.shed {
            parts.reporter.shed(dropped, cap: Self.capacity, version: parts.rules.now.definition.version)
            parts.journal.record(.handled(position: dropped.position, state: [], messages: []))
        }
    }

    /// Starts working the lanes with `handler` (a lane's task exists only while it has events).
    func start(handler: EventHandler) {
        queues.start { [session] event in
            if !session.loggedIn.isOpen { await session.loggedIn.wait() }
            guard !Task.isCancelled else { return false }
            return await handler.handleAccepted(event)
        }
    }

    /// Stops the lanes at once (what is unfinished stays journaled); returns when they have.
    func stop() async {
        await queues.stop(drain: nil, time: parts.time)
    }

    private static func key(_ event: Event) -> String {
        event.conversation?.address.description ?? "-"
    }
}
