import IMClient
import IMProtocol
import Lifecycle

/// A bot's outgoing messages: one queue per conversation, each sent in order by its own
/// worker, within the bot's budgets.
///
/// A message carries its deterministic client id on every attempt, so a retry, or a
/// re-send after a crash, is dropped by the server as a repeat. This is the one place
/// the runner retries sends (the client's own send retry is off): a failure the server
/// may recover from (unreachable, `429`, `503`) is retried with backoff or after the
/// server's `Retry-After`, which pauses only that conversation's queue. A message that
/// keeps failing is given up after `attempts`, logged and audited, never silently
/// dropped. Each conversation holds at most `capacity` messages: past that the oldest
/// reply is shed (audited and counted); alerts are never shed, and one that finds its
/// queue full of alerts is refused.
///
/// Alerts are a priority lane: they go ahead of the replies waiting in their
/// conversation, and a reply elsewhere leaves the bot's total budget to an alert that
/// waits for it. An incident's living message is posted once (its id then recorded in
/// the journal) and edited in place; a newer edit of it replaces one still waiting.
///
/// As a service it drains when stopped: queued messages go on being sent for up to
/// ``drainTime``; what is left stays in the journal and is sent at the next start.
final class Outbox: Service {
    let name: String
    private let queues: WorkQueues<PendingMessage>
    private let parts: BotParts
    private let retrier: Retrier
    /// Opens once the bot is logged in: nothing is sent before.
    private let loggedIn: Latch

    static let drainTime = Duration.seconds(10)

    init(parts: BotParts, loggedIn: Latch, attempts: Int = 4,
         backoff: BackoffPolicy = BackoffPolicy(base: .seconds(1), cap: .seconds(30))) {
        self.name = "outbox \(parts.name)"
        self.parts = parts
        self.loggedIn = loggedIn
        self.queues = WorkQueues(capacity: { parts.outboxCapacity }, sheddable: { $0.sheddable },
                                 priority: { $0.isAlert })
        self.retrier = Retrier(attempts: attempts, backoff: backoff, time: parts.time)
    }

    /// Queues messages (already in the journal) for sending; returns those refused for
    /// a full queue (alerts only: replies are shed instead). What is shed is recorded.
    @discardableResult
    func offer(_ messages: [PendingMessage]) -> [PendingMessage] {
        var refused: [PendingMessage] = []
        for message in messages {
            let offer = queues.offer(message, key: message.to, replacing: Self.sameEdit(as: message))
            if let replaced = offer.replaced { parts.journal.record(.done(clientMessageID: replaced.clientMessageID)) }
            if !offer.accepted, !message.sheddable { refused.append(message) }
            for dropped in offer.shed {
                parts.reporter.shed(dropped, cap: parts.outboxCapacity, version: parts.rules.now.definition.version)
                parts.journal.record(.done(clientMessageID: dropped.clientMessageID))
            }
        }
        return refused
    }

    /// Messages queued now, the ones being sent included.
    var count: Int { queues.count }

    /// Whether every conversation of `alerts` has room for them now.
    func hasRoom(for alerts: [PendingMessage]) -> Bool {
        Dictionary(grouping: alerts, by: \.to).allSatisfy { queues.room($0.key) >= $0.value.count }
    }

    /// An edit of a living message replaces a waiting edit of the same one.
    private static func sameEdit(as message: PendingMessage) -> ((PendingMessage) -> Bool)? {
        guard let ref = message.incident, ref.part == .edit else { return nil }
        return { $0.incident == ref }
    }

    func run() async throws {
        start()
        await Task.waitForCancellation()
        await stop()
    }

    /// Starts sending: a worker for every conversation with messages, now and later.
    func start() {
        queues.start { [self] message in await deliver(message) }
    }

    /// Stops sending once what is queued went out, or after ``drainTime``; what is left
    /// stays in the journal. Returns when every worker has ended.
    func stop() async {
        await queues.stop(drain: Self.drainTime, time: parts.time)
    }

    /// Sends one message; false when interrupted (stopping, or the login ended), so that
    /// it stays queued.
    private func deliver(_ message: PendingMessage) async -> Bool {
        // Waiting on an open latch still suspends and queues the task again: checked first,
        // it costs nothing on the way of every reply.
        if !loggedIn.isOpen { await loggedIn.wait() }
        guard !Task.isCancelled else { return false }
        guard let address = ConversationAddress(message.to) else {
            let error = IMClientError(.invalidArgument, "'\(message.to)' is not a conversation address")
            return await finish(message, .failure(error))
        }
        let budget = parts.rules.now.budget
        while let wait = budget.reserve(address, alert: message.isAlert) {
            do {
                try await parts.time.sleep(for: wait)
            } catch {
                return false
            }
        }
        let result = await retrier.run { _ -> Retrier.Attempt<Result<Message?, IMClientError>> in
            do throws(IMClientError) {
                return .finished(.success(try await send(message, to: address)))
            } catch {
                // Refusals (not a member, bad text) will not change by retrying.
                return error.isTransient ? .retry(.failure(error), after: error.serverWait) : .finished(.failure(error))
            }
        }
        if case .failure(let error) = result {
            // Stopping, or this login ended (another runner took the bot over): the message
            // is not given up, it stays for whoever runs the bot next.
            if Task.isCancelled || error.code == .cancelled || error.code == .kickedOut
                || error.apiCode == .unauthorized || error.code == .notLoggedIn {
                return false
            }
        }
        return await finish(message, result.map { _ in () })
    }

    /// One attempt at a message: a send, or for a living message its post (the id then
    /// recorded), edit or reply. Nil when there is nothing to do (an edit of a message
    /// whose post failed for good).
    private func send(_ message: PendingMessage, to address: ConversationAddress) async throws(IMClientError)
        -> Message?
    {
        if let link = parts.matrix {
            try await sendToMatrix(message, to: address, link)
            return nil
        }
        if let notice = message.notice {
            // Idempotent by its client id, as a message is: a repeat answers the first notice.
            try await parts.client.sendNotice(in: notice.conversation, to: notice.user, text: message.text,
                                              clientID: message.clientMessageID, replyTo: message.replyTo)
            return nil
        }
        guard let ref = message.incident else {
            return try await parts.client.send(
                message.text, to: address, replyTo: message.replyTo, clientMessageID: message.clientMessageID)
        }
        let posted = parts.journal.read { $0.alerts.messageID(of: ref) }
        switch ref.part {
        case .post:
            // Posted before a restart, the record of the post kept: the message exists.
            if let posted { return try await parts.client.editMessage(posted, in: address, text: message.text) }
            var sent = try await parts.client.send(message.text, to: address, clientMessageID: message.clientMessageID)
            // A repeated post (its id was not recorded yet) returns the first message, with
            // the text it had then.
            if sent.text != message.text {
                sent = try await parts.client.editMessage(sent.id, in: address, text: message.text)
            }
            parts.journal.record(.incidentPosted(IncidentPost(book: ref.book, groupKey: ref.groupKey, messageID: sent.id)))
            return sent
        case .edit:
            guard let posted else { return nil }
            return try await parts.client.editMessage(posted, in: address, text: message.text)
        case .reply:
            return try await parts.client.send(
                message.text, to: address, replyTo: message.replyTo ?? posted, clientMessageID: message.clientMessageID)
        }
    }

    /// One attempt at a message of a Matrix bot: a send, or for a living message its
    /// post (the id then recorded), edit (`m.replace`) or reply.
    private func sendToMatrix(_ message: PendingMessage, to address: ConversationAddress, _ link: MatrixLink)
        async throws(IMClientError)
    {
        guard let ref = message.incident else { return try await link.send(message, to: address) }
        let posted = parts.journal.read { $0.alerts.messageID(of: ref) }
        switch ref.part {
        case .post:
            if let posted { return try await link.edit(posted, in: address, text: message.text, message.clientMessageID) }
            // A post repeated after a crash is the first event (same transaction id);
            // its text is then that of the repeat, so nothing is lost.
            let sent = try await link.post(message, to: address)
            parts.journal.record(.incidentPosted(IncidentPost(book: ref.book, groupKey: ref.groupKey, messageID: sent)))
        case .edit:
            guard let posted else { return }
            try await link.edit(posted, in: address, text: message.text, message.clientMessageID)
        case .reply:
            var reply = message
            reply.replyTo = message.replyTo ?? posted
            try await link.send(reply, to: address)
        }
    }

    private func finish(_ message: PendingMessage, _ result: Result<Void, IMClientError>) async -> Bool {
        if case .failure(let error) = result {
            parts.reporter.sendFailed(message, error, version: parts.rules.now.definition.version)
        }
        parts.journal.record(.done(clientMessageID: message.clientMessageID))
        return true
    }
}
