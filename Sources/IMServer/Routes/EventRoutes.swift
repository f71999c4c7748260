import HTTPServer
import IMProtocol
import IMStore

/// `GET /v1/events`: the long-poll feed.
enum EventRoutes {
    static let routes: [Route] = [
        Route(.get, "/v1/events", access: .user, handler: poll)
    ]

    static func poll(_ context: RequestContext) async throws -> Response {
        let core = context.core
        let session = try context.caller
        let store = core.store
        let limit = try context.queryInt("limit", in: Limits.eventsPerPoll, default: 100) ?? 100
        let timeout = try context.queryInt("timeout", in: 0...core.configuration.maxPollTimeout, default: 30) ?? 30
        // One poll per login: any new poll, parking or not, ends the one already parked,
        // so two runners sharing a token show up at once instead of both getting events.
        core.hub.end(tokenID: session.tokenID, with: .replaced)

        guard let text = context.request.query("cursor"), !text.isEmpty else {
            let cursor = FeedCursor(epoch: store.epoch, userID: session.userID, position: store.committedPosition)
            return try .json(EventBatch(events: [], cursor: cursor.text), encoder: core.encoder)
        }
        guard let cursor = FeedCursor(text) else {
            throw APIError.invalid("cursor", "'\(text)' is not a cursor: poll without one to get a fresh cursor")
        }
        try check(cursor, session: session, core: core)

        var waited = false
        let deadline = core.monotonic() + Double(timeout)
        while true {
            let events: [Event]
            do {
                events = try await store.events(for: session.userID, after: cursor.position, limit: limit)
            } catch StoreError.cursorTooOld {
                throw APIError(
                    .cursorExpired, "events after this cursor are no longer kept: poll without a cursor and re-sync")
            }
            if !events.isEmpty || waited && core.monotonic() >= deadline {
                return try deliver(events, after: cursor, core: core)
            }
            let remaining = deadline - core.monotonic()
            if remaining <= 0 { return try deliver([], after: cursor, core: core) }
            waited = true
            let wake = await context.request.parked {
                await core.hub.wait(
                    tokenID: session.tokenID, userID: session.userID, after: cursor.position, timeout: remaining)
            }
            switch wake {
            case .ready:
                // The login may have ended while parked (a password change): never hand
                // events to a login that is no longer valid.
                _ = try await core.authenticator.authenticate(context.request.headers["Authorization"])
                continue
            case .published(let update):
                if !core.authenticator.isStillValid(session) {
                    _ = try await core.authenticator.authenticate(context.request.headers["Authorization"])
                }
                // Messages come with the update: a thousand polls woken by one group
                // message are answered without a thousand reads of their feeds.
                if let events = update.events(for: session.userID, after: cursor.position, limit: limit),
                    !events.isEmpty
                {
                    core.metrics.pollsAnsweredFromCommits.add(1, ordering: .relaxed)
                    return try deliver(events, after: cursor, core: core)
                }
                continue
            case .timedOut, .cancelled:
                return try deliver([], after: cursor, core: core)
            case .replaced:
                core.metrics.pollsReplaced.add(1, ordering: .relaxed)
                throw APIError(
                    .conflict, "another poll with the same login replaced this one", reason: "poll_replaced")
            case .loggedOut:
                throw APIError(.unauthorized, "this login has ended: log in again", reason: "logged_out")
            case .kickedOut(let reason):
                let event = Event(position: cursor.position, type: .kickedOut, at: core.now(), reason: reason)
                return try .json(EventBatch(events: [event], cursor: cursor.text), encoder: core.encoder)
            }
        }
    }

    /// 410 for a cursor of another user or database, or from the future. (One older than
    /// the retained feed is found when the feed is read.)
    private static func check(_ cursor: FeedCursor, session: Session, core: ServerCore) throws {
        let store = core.store
        guard cursor.epoch == store.epoch, cursor.userID == session.userID,
            cursor.position <= store.issuedPosition
        else {
            throw APIError(
                .cursorExpired, "this cursor is not from this account's feed on this server: poll without a cursor and re-sync")
        }
    }

    private static func deliver(_ events: [Event], after cursor: FeedCursor, core: ServerCore) throws -> Response {
        var next = cursor
        if let last = events.last { next.position = last.position }
        core.metrics.eventsDelivered.add(events.count, ordering: .relaxed)
        return try .json(EventBatch(events: events, cursor: next.text), encoder: core.encoder)
    }
}
