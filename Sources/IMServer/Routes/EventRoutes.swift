import HTTPServer
import IMProtocol
import IMStore

/// `GET /v1/events`: the long-poll feed.
enum EventRoutes {
    static let routes: [Route] = [
        Route(.get, "/v1/events", access: .user, handler: poll)
    ]

    /// What a poll asked for, once its query is checked.
    private final class Poll: Sendable {
        let session: Session
        let cursor: FeedCursor
        let limit: Int
        let deadline: Double
        /// This node's claim on the login's poll (0 on one node).
        let claim: Int64

        init(session: Session, cursor: FeedCursor, limit: Int, deadline: Double, claim: Int64) {
            self.session = session
            self.cursor = cursor
            self.limit = limit
            self.deadline = deadline
            self.claim = claim
        }
    }

    /// What to do after a parked poll woke.
    private enum Next {
        case answer(Response)
        /// Read the feed again, checking the login first when `recheck`.
        case read(recheck: Bool)
    }

    /// Answers at once when there are events, or without a cursor; otherwise parks.
    ///
    /// A parked poll holds no task: its request's answer is deferred, and the hub calls
    /// back when it wakes (`park`). With 10,000 parked polls a task each kept about 5 KiB
    /// of async frames and task memory per poll.
    static func poll(_ context: RequestContext) async throws -> Response {
        let core = context.core
        // Where several nodes share the database, the poll is claimed for this one first:
        // a poll of the same login parked on another node ends (409).
        let claim = try await core.claimPoll(try context.caller)
        // Without a cursor: where a fresh one starts (with several nodes, the database's
        // newest position, which this node may not have read yet).
        let fresh = (context.request.query("cursor") ?? "").isEmpty ? try await core.store.freshCursorPosition() : 0
        let poll: Poll
        switch try start(context, claim: claim, freshPosition: fresh) {
        case .answer(let response): return response
        case .poll(let started): poll = started
        }
        // A cursor another node handed out may be ahead of what this one has heard of.
        if poll.cursor.position > core.store.issuedPosition,
            poll.cursor.position > (try await core.store.newestIssuedPosition())
        {
            throw expired
        }
        // A live client's next poll usually finds nothing new, which the hub can tell
        // without a read of the feed (for a member of many conversations, one look-up each).
        let events =
            core.hub.mayHaveEvents(for: poll.session.userID, after: poll.cursor.position)
            ? try await read(poll, core: core) : []
        if let response = try answer(events, poll, waited: false, core: core) { return response }
        // A request made up in a test has no connection to answer on later: it is
        // answered now, as if its time were up.
        guard let deferred = context.request.deferResponse() else { return try deliver([], after: poll.cursor, core: core) }
        park(poll, context, deferred)
        return deferred.response
    }

    /// Parks the poll with the hub. When it wakes, the answer is worked out right there
    /// when nothing needs to be awaited (a commit that holds its events, the time running
    /// out, a replacement): a thousand polls woken by one message are answered in turn on
    /// the hub's queue, without a task each. Otherwise a task reads the feed and answers,
    /// or parks again when there is nothing for this login after all.
    private static func park(_ poll: Poll, _ context: RequestContext, _ deferred: DeferredResponse) {
        let core = context.core
        let waiter = core.hub.park(
            tokenID: poll.session.tokenID, userID: poll.session.userID, after: poll.cursor.position,
            timeout: poll.deadline - core.monotonic(), claim: poll.claim
        ) { wake in
            let next: Next
            do {
                next = try self.next(after: wake, poll, core: core)
            } catch {
                send(failure(error, context), deferred, core: core)
                return
            }
            switch next {
            case .answer(let response):
                send(response, deferred, core: core)
            case .read(let recheck):
                Task {
                    let response: Response
                    do {
                        guard let answer = try await answer(afterReading: recheck, poll, context) else {
                            park(poll, context, deferred)
                            return
                        }
                        response = answer
                    } catch {
                        response = failure(error, context)
                    }
                    send(response, deferred, core: core)
                }
            }
        }
        deferred.onCancel { core.hub.cancel(tokenID: poll.session.tokenID, waiterID: waiter) }
    }

    private static func send(_ response: Response, _ deferred: DeferredResponse, core: ServerServices) {
        core.metrics.recordRequest(method: .get, route: "/v1/events", status: response.status)
        deferred.send(response)
    }

    /// The answer once the feed is read again after a wake, or nil to park again.
    private static func answer(afterReading recheck: Bool, _ poll: Poll, _ context: RequestContext) async throws
        -> Response?
    {
        let core = context.core
        // The login may have ended while parked (a password change): never hand
        // events to a login that is no longer valid.
        if recheck { _ = try await core.authenticator.authenticate(context.request.headers["Authorization"]) }
        let events = try await read(poll, core: core)
        return try answer(events, poll, waited: true, core: core)
    }

    /// The error envelope of a deferred answer (APIResponder's, for the others).
    @inline(never)
    private static func failure(_ error: any Error, _ context: RequestContext) -> Response {
        let (apiError, logged) = ErrorMapping.apiError(for: error)
        context.core.failures.failed("GET /v1/events", route: "/v1/events", error: error, logged: logged)
        return .error(apiError)
    }

    private enum Start {
        case answer(Response)
        case poll(Poll)
    }

    /// Checks the query; answers at once without a cursor, with one at `freshPosition`.
    @inline(never)
    private static func start(_ context: RequestContext, claim: Int64, freshPosition: Int64) throws -> Start {
        let core = context.core
        let session = try context.caller
        let store = core.store
        let limit = try context.queryInt("limit", in: Limits.eventsPerPoll, default: 100) ?? 100
        // The default of 30 s, like any timeout asked for, is within the configured longest.
        let longest = core.configuration.maxPollTimeout
        let timeout = try context.queryInt("timeout", in: 0...longest, default: min(30, longest)) ?? min(30, longest)
        // One poll per login: any new poll, parking or not, ends the one already parked,
        // so two runners sharing a token show up at once instead of both getting events.
        core.hub.end(tokenID: session.tokenID, with: .replaced)

        guard let text = context.request.query("cursor"), !text.isEmpty else {
            let cursor = FeedCursor(epoch: store.epoch, userID: session.userID, position: freshPosition)
            return .answer(try .json(EventBatch(events: [], cursor: cursor.text), encoder: core.encoder))
        }
        guard let cursor = FeedCursor(text) else {
            throw APIError.invalid("cursor", "'\(text)' is not a cursor: poll without one to get a fresh cursor")
        }
        try check(cursor, session: session, core: core)
        // A cursor of the database this one was restored from reads on in this one's
        // epoch: the answer's cursor carries the current epoch.
        var current = cursor
        current.epoch = store.epoch
        return .poll(
            Poll(session: session, cursor: current, limit: limit, deadline: core.monotonic() + Double(timeout), claim: claim))
    }

    /// The user's events after the cursor. Not inlined: its frame is gone while the poll
    /// is parked.
    @inline(never)
    private static func read(_ poll: Poll, core: ServerServices) async throws -> [Event] {
        try await core.store.events(for: poll.session.userID, after: poll.cursor.position, limit: poll.limit)
    }

    /// The answer when there are events or the time is up; nil to park.
    @inline(never)
    private static func answer(_ events: [Event], _ poll: Poll, waited: Bool, core: ServerServices) throws -> Response? {
        if !events.isEmpty || waited && core.monotonic() >= poll.deadline {
            return try deliver(events, after: poll.cursor, core: core)
        }
        if poll.deadline - core.monotonic() <= 0 { return try deliver([], after: poll.cursor, core: core) }
        return nil
    }

    @inline(never)
    private static func next(after wake: EventHub.Wake, _ poll: Poll, core: ServerServices) throws -> Next {
        switch wake {
        case .ready:
            return .read(recheck: true)
        case .published(let answers):
            // Messages come with the update, each encoded once for all the polls it wakes:
            // a thousand polls woken by one group message are answered without a thousand
            // reads of their feeds or encodings of the message.
            let recheck = !core.authenticator.isStillValid(poll.session)
            if !recheck, let (body, count) = answers.answer(after: poll.cursor, limit: poll.limit) {
                core.metrics.pollsAnsweredFromCommits.add(1, ordering: .relaxed)
                core.metrics.eventsDelivered.add(count, ordering: .relaxed)
                return .answer(Response(status: 200, headers: ["Content-Type": "application/json"], body: body))
            }
            return .read(recheck: recheck)
        case .timedOut, .cancelled:
            return .answer(try deliver([], after: poll.cursor, core: core))
        case .replaced:
            core.metrics.pollsReplaced.add(1, ordering: .relaxed)
            throw APIError(.conflict, "another poll with the same login replaced this one", reason: "poll_replaced")
        case .loggedOut:
            throw APIError(.unauthorized, "this login has ended: log in again", reason: "logged_out")
        case .kickedOut(let reason):
            let event = Event(position: poll.cursor.position, type: .kickedOut, at: core.now(), reason: reason)
            return .answer(try .json(EventBatch(events: [event], cursor: poll.cursor.text), encoder: core.encoder))
        }
    }

    /// 410 for a cursor of another user or database, or from a timeline a restore undid.
    /// (One of this epoch past what this node has heard of is checked against the
    /// database by `poll`; one older than the retained feed is found when the feed is read.)
    private static func check(_ cursor: FeedCursor, session: Session, core: ServerServices) throws {
        guard cursor.userID == session.userID else { throw expired }
        guard core.store.acceptsCursor(epoch: cursor.epoch, position: cursor.position) || cursor.epoch == core.store.epoch
        else { throw expired }
    }

    private static let expired = APIError(
        .cursorExpired, "this cursor is not from this account's feed on this server: poll without a cursor and re-sync")

    private static func deliver(_ events: [Event], after cursor: FeedCursor, core: ServerServices) throws -> Response {
        // At most `Limits.answerBytes`: the rest comes with the next poll, from the cursor.
        let events = AnswerBudget.fitting(events, size: AnswerBudget.bytes(of:))
        var next = cursor
        if let last = events.last { next.position = last.position }
        core.metrics.eventsDelivered.add(events.count, ordering: .relaxed)
        return try .json(EventBatch(events: events, cursor: next.text), encoder: core.encoder)
    }
}
