import IMClient
import IMProtocol
import MatrixClient

/// A Matrix bot's main loop, the Matrix side of ``EventLoop``: logs in, joins its rooms,
/// applies its profile, then hands each event of its feed (``MatrixFeed``, its `since`
/// token in the journal) to the same ``EventHandler`` as a Switchboard bot's: the rules,
/// journal, outbox, budgets, audit and metrics are the same. Before that, the
/// ``MatrixRoomGuard`` does what a homeserver does not (restricted newcomers, slow mode).
struct MatrixEventLoop: Sendable {
    let link: MatrixLink
    let parts: BotParts
    let session: BotSession
    let handler: EventHandler

    /// Returns when the task is cancelled or the login is refused for good.
    func run() async {
        guard var identity = await connect() else { return }
        if let nickname = await MatrixProfile(link: link, parts: parts).apply() { identity.nickname = nickname }
        session.begin(as: identity)
        let guardian = MatrixRoomGuard(link: link, parts: parts)
        let definition = parts.rules.now.definition
        let time = parts.time
        let positions = MatrixPositions(journal: JournalCursorStore(
            journal: parts.journal, resumes: definition.backlog != .skip, sleep: { try await time.sleep(for: $0) }))
        let accept = link.account.invites == .accept
        let feed = MatrixFeed(client: link.client, cursor: positions, options: MatrixFeed.Options(
            pollTimeout: .seconds(parts.configuration.pollTimeout), acceptInvite: { _, _ in accept }))
        var failures = 0
        var started = false
        while !Task.isCancelled {
            do throws(IMClientError) {
                if !started {
                    // Connected once the feed holds its beginning: what happens from here on is seen.
                    try await feed.start()
                    started = true
                    parts.metrics.connected(bot: parts.name, true)
                    parts.logger.info("bot \(parts.name) is running on Matrix as \(identity.username) at "
                                      + link.account.homeserver,
                                      [("rules", String(definition.rules.count)), ("version", definition.version)])
                }
                let batch = try await feed.next()
                failures = 0
                await handle(batch, positions, me: identity.username, guardian)
            } catch {
                if error.code == .cancelled || Task.isCancelled { break }
                guard error.isTransient else {
                    parts.logger.error("bot \(parts.name) stopped: \(error.message)")
                    break
                }
                failures += 1
                let wait = error.serverWait ?? BackoffPolicy().delay(afterFailures: failures, random: Double.random(in: 0..<1))
                parts.logger.warning("bot \(parts.name): \(error.message); retrying in \(wait)")
                do { try await time.sleep(for: wait) } catch { break }
            }
        }
        parts.metrics.connected(bot: parts.name, false)
    }

    private func handle(_ batch: MatrixFeedBatch, _ positions: MatrixPositions, me: String,
                        _ guardian: MatrixRoomGuard) async {
        for room in batch.joined { parts.logger.notice("bot \(parts.name): joined \(room), where it was invited") }
        for (room, user) in batch.direct { link.learnDirect(room, with: user) }
        link.learn(displayNames: batch.displayNames)
        for room in batch.encrypted { await tellEncrypted(room) }
        for room in batch.gaps {
            parts.logger.warning("bot \(parts.name): more events happened in \(room) since the last /sync than the "
                                 + "feed pages in (1,000), or the homeserver refused the pages; the older ones were "
                                 + "left out")
        }
        var events = batch.events
        if let since = batch.since, !events.isEmpty {
            // The same batch again after a crash: each event where it was (and the new
            // ones after them), so its handled events are not handled twice nor others
            // taken for handled. Journaled before any event of it is handled.
            if let layout = parts.journal.state.matrix.batch, layout.since == since { events = layout.order(events) }
            parts.journal.record(.matrix(.batch(MatrixBatchLayout(since: since, events: events))))
        }
        guard let range = positions.take(events.count) else { return }
        for (item, position) in zip(events, range) {
            guard let event = link.event(item, position: position, me: me) else {
                // Nothing for the rules: counted as handled, so the journal moves past it.
                if parts.journal.isNew(position) { handler.run.reply([], position: position) }
                continue
            }
            if parts.journal.isNew(position) {
                await guardian.restrictIfNew(event, roomID: item.roomID)
                if let notices = await guardian.slowModeBreach(event, roomID: item.roomID) {
                    handler.run.reply(notices, position: position)
                    continue
                }
            }
            await handler.receive(event)
        }
    }

    /// Says once in an encrypted room that the bot cannot read it (the transaction id is
    /// the room's, so a restart does not say it again), and logs it.
    private func tellEncrypted(_ roomID: String) async {
        parts.logger.warning("bot \(parts.name): \(roomID) is encrypted; this version reads unencrypted rooms only")
        _ = try? await link.client.sendText(
            "I cannot read encrypted messages: this room is encrypted, and I read unencrypted rooms only.",
            to: roomID, kind: .notice, transactionID: "encrypted-" + String(MatrixLink.number(roomID)))
    }

    /// Logs in, waiting out unreachable homeservers and rate limits; nil when refused.
    private func connect() async -> BotContext.Identity? {
        let retrier = Retrier(attempts: nil, backoff: BackoffPolicy(), time: parts.time)
        let outcome = await retrier.run { attempt -> Retrier.Attempt<Result<BotContext.Identity, IMClientError>> in
            do throws(IMClientError) {
                return .finished(.success(try await link.connect()))
            } catch {
                guard error.isTransient else { return .finished(.failure(error)) }
                if attempt == 1 || attempt % 10 == 0 { parts.logger.warning("bot \(parts.name): \(error.message); retrying") }
                return .retry(.failure(error), after: error.serverWait)
            }
        }
        switch outcome {
        case .success(let identity):
            return identity
        case .failure(let error):
            if error.code != .cancelled {
                parts.logger.error("bot \(parts.name) cannot log in to \(link.account.homeserver) as "
                                   + "\(link.account.user): \(error.message)")
            }
            return nil
        }
    }
}
