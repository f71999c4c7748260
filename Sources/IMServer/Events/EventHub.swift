import Dispatch
import IMProtocol
import IMStore
import Lifecycle
import Synchronization

/// Where parked polls wait for their user's feed to grow.
///
/// Commits report each user's newest position (`publish`); a poll parks only while that
/// position is not beyond its cursor, checked under the same lock that registers it, so
/// no wake-up is lost between reading the feed and parking. One parked poll per login:
/// a second one replaces the first.
///
/// A commit is handed over on the writer thread, before its callers resume: its update is
/// recorded there, under the lock, so a poll that follows the commit's answer sees it;
/// the hub's queue then applies it (each recipient's newest position, the polls it
/// wakes), so the writer's share does not grow with the audience. Where several server nodes share a
/// PostgreSQL database, the other nodes' commits come too, in position order (their
/// updates carry no messages, so the polls they wake read their feeds), and the rule of
/// one parked poll per login holds across nodes through poll claims (`supersede`). The woken polls are answered on a
/// serial queue of the hub's own, in commit order: a thousand of them, woken by one group
/// message, take milliseconds the writer must not wait for.
final class EventHub: Sendable {
    /// Why a parked poll woke.
    enum Wake: Sendable {
        /// New events may be there: read the feed again.
        case ready
        /// The first commit since the poll parked added to its user's feed: the update
        /// holds everything after the poll's position (see `park`), so when it can yield
        /// the events they need not be read from the feed.
        case published(CommitAnswers)
        case timedOut
        /// Another poll with the same login took over.
        case replaced
        /// The login was ended because the account logged in elsewhere.
        case kickedOut(String)
        /// The login was ended by logging out.
        case loggedOut
        /// The client went away or the server is stopping.
        case cancelled
    }

    /// How a parked poll hears why it woke: called once, outside the hub's lock, on the
    /// thread that woke it (the hub's queue for commits, the expiry timer's, another
    /// request's). It should not block: the polls woken with it wait their turn.
    typealias Notify = @Sendable (Wake) -> Void

    private struct Waiter {
        var id: UInt64
        var userID: UserID
        var deadline: Double
        /// The generation of the node's claim on the login's poll (0 on one node).
        var claim: Int64
        var notify: Notify
    }

    private struct State {
        var waiters: [Int64: Waiter] = [:]  // by token id
        var tokensByUser: [UserID: Set<Int64>] = [:]
        /// The newest position of each user's feed in the updates applied so far.
        var latest: [UserID: Int64] = [:]
        /// Updates published and not yet applied to `latest` and the waiters (the hub's
        /// queue applies them, in order): a poll checks them too, so it sees a commit as
        /// soon as it is published.
        var pending: [FeedUpdate] = []
        var nextWaiterID: UInt64 = 1
        var stopped = false
        /// Every commit after this position is published here (see `hearsEverything`).
        var heardAfter = Int64.max
        /// The newest poll claim other nodes made, by login: an older poll of the login
        /// may not park here (bounded; forgotten wholesale past its capacity).
        var superseded: [Int64: Int64] = [:]
    }

    private static let supersededCapacity = 100_000

    private let state = Mutex(State())
    private let clock: any TimeSource
    private let wakes: DispatchQueue

    /// `wakes` is the serial queue that applies updates and answers the polls they wake
    /// (a test may hold it back).
    init(clock: any TimeSource, wakes: DispatchQueue = DispatchQueue(label: "switchboard.feed-wakes")) {
        self.clock = clock
        self.wakes = wakes
    }

    /// Parks until the user's feed passes `position`, the deadline, a replacement, a kick
    /// or `cancel`; then calls `notify` (at once when there is no need to wait). Returns
    /// the waiter's id, for `cancel`. The poll's task need not wait: see `DeferredResponse`.
    ///
    /// The poll parks only if no update published so far took the user's feed beyond
    /// `position`, checked under the lock `publish` takes. The caller read the feed before
    /// (finding nothing after `position`), and updates are published in commit order after
    /// their commit; so when an update wakes the poll (`.published`), every entry after
    /// `position` that exists is in that update.
    ///
    /// `claim` is the generation of this node's claim on the login's poll: a poll whose
    /// claim another node has since outdone is replaced at once.
    @discardableResult
    func park(
        tokenID: Int64, userID: UserID, after position: Int64, timeout: Double, claim: Int64 = 0,
        notify: @escaping Notify
    ) -> UInt64 {
        let deadline = clock.seconds + timeout
        let (waiterID, immediate, replaced) = state.withLock { state -> (UInt64, Wake?, Waiter?) in
            let waiterID = state.nextWaiterID
            state.nextWaiterID += 1
            if state.stopped { return (waiterID, .cancelled, nil) }
            if let newer = state.superseded[tokenID], newer > claim { return (waiterID, .replaced, nil) }
            if Self.hasNews(for: userID, after: position, in: state) { return (waiterID, .ready, nil) }
            let earlier = state.waiters[tokenID]
            state.waiters[tokenID] = Waiter(
                id: waiterID, userID: userID, deadline: deadline, claim: claim, notify: notify)
            state.tokensByUser[userID, default: []].insert(tokenID)
            return (waiterID, nil, earlier)
        }
        replaced?.notify(.replaced)
        if let immediate { notify(immediate) }
        return waiterID
    }

    /// Ends the parked poll of a login, if there is one.
    func end(tokenID: Int64, with wake: Wake) {
        end(tokenID: tokenID, waiterID: nil, with: wake)
    }

    /// Ends one parked poll as cancelled, if it is still parked (its client went away).
    func cancel(tokenID: Int64, waiterID: UInt64) {
        end(tokenID: tokenID, waiterID: waiterID, with: .cancelled)
    }

    /// Removes and notifies one waiter, if it is still the one with `waiterID` (when given).
    private func end(tokenID: Int64, waiterID: UInt64?, with wake: Wake) {
        let waiter = state.withLock { state -> Waiter? in
            guard let waiter = state.waiters[tokenID], waiterID == nil || waiter.id == waiterID else { return nil }
            Self.remove(tokenID, userID: waiter.userID, from: &state)
            return waiter
        }
        waiter?.notify(wake)
    }

    private static func remove(_ tokenID: Int64, userID: UserID, from state: inout State) {
        state.waiters[tokenID] = nil
        if var tokens = state.tokensByUser[userID] {
            tokens.remove(tokenID)
            state.tokensByUser[userID] = tokens.isEmpty ? nil : tokens
        }
    }

    /// Records a commit's update (at once, on the committing thread, so that a poll after
    /// the commit's answer sees it) and, on the hub's queue, in commit order, applies it:
    /// each recipient's newest position, and the parked polls it wakes. The committing
    /// thread's share does not grow with the number of recipients: a message to a group
    /// of 10,000 held every other write back for 10,000 map updates and as many look-ups
    /// of parked polls before (BENCHMARKS.md, "Event feed").
    func publish(_ update: FeedUpdate) {
        if let missed = update.missedThrough {
            resync(through: missed)
            return
        }
        guard !update.entries.isEmpty else { return }
        state.withLock { $0.pending.append(update) }
        wakes.async { self.applyOldestPending() }
    }

    /// Applies the oldest pending update (hub's queue): records its positions, takes out
    /// the polls it wakes, then answers them. The update leaves `pending` under the same
    /// lock that records it, so a poll never finds it in neither place.
    private func applyOldestPending() {
        let taken = state.withLock { state -> (FeedUpdate, [Notify])? in
            guard !state.pending.isEmpty else { return nil }
            let update = state.pending.removeFirst()
            var woken: [Notify] = []
            for entry in update.entries {
                for userID in entry.recipients {
                    if entry.position > state.latest[userID] ?? 0 { state.latest[userID] = entry.position }
                }
            }
            // The parked polls among the recipients: by the recipients when they are few,
            // by the parked polls when those are (a message to a large group, few online).
            if !state.tokensByUser.isEmpty {
                let recipients = update.entries.reduce(0) { $0 + $1.recipients.count }
                if recipients <= state.tokensByUser.count {
                    for entry in update.entries {
                        for userID in entry.recipients { Self.takeWaiters(of: userID, into: &woken, &state) }
                    }
                } else {
                    let parked = Array(state.tokensByUser.keys)
                    for userID in parked where update.entries.contains(where: { $0.index(of: userID) != nil }) {
                        Self.takeWaiters(of: userID, into: &woken, &state)
                    }
                }
            }
            return (update, woken)
        }
        guard let (update, woken) = taken, !woken.isEmpty else { return }
        let answers = CommitAnswers(update)
        for notify in woken { notify(.published(answers)) }
    }

    private static func takeWaiters(of userID: UserID, into woken: inout [Notify], _ state: inout State) {
        guard let tokens = state.tokensByUser.removeValue(forKey: userID) else { return }
        for token in tokens {
            if let waiter = state.waiters.removeValue(forKey: token) { woken.append(waiter.notify) }
        }
    }

    /// Whether the user's feed grew past `position` in an update published so far.
    private static func hasNews(for userID: UserID, after position: Int64, in state: State) -> Bool {
        if let latest = state.latest[userID], latest > position { return true }
        return state.pending.contains { $0.reaches(userID, after: position) }
    }

    /// From now on every commit after `position` is published here (the caller has
    /// subscribed to the store's feeds and read its committed position since).
    func hearsEverything(after position: Int64) {
        state.withLock { $0.heardAfter = position }
    }

    /// False when the user's feed certainly holds nothing after `position`: the hub has
    /// heard of every commit after it and none was for this user. A poll then parks
    /// without reading the feed (it could not be below the feed's floor either: retention
    /// only drops events the user had, all at or below the newest the hub knows of).
    func mayHaveEvents(for userID: UserID, after position: Int64) -> Bool {
        state.withLock { state in
            position < state.heardAfter || Self.hasNews(for: userID, after: position, in: state)
        }
    }

    /// After commits up to `position` may have gone unheard (another node's, while the
    /// store was not listening): from now on polls read their feeds unless their cursor
    /// is past it, and every parked poll reads its feed again.
    private func resync(through position: Int64) {
        state.withLock { state in
            state.heardAfter = state.heardAfter == Int64.max ? position : max(state.heardAfter, position)
        }
        wakeAll()
    }

    /// Wakes every parked poll, each to check its login and read its feed again.
    func wakeAll() {
        let woken = state.withLock { state -> [Waiter] in
            defer {
                state.waiters.removeAll()
                state.tokensByUser.removeAll()
            }
            return Array(state.waiters.values)
        }
        for waiter in woken { waiter.notify(.ready) }
    }

    /// Wakes the parked poll of one login, to check the login again (ended on another node).
    func wake(tokenID: Int64) {
        end(tokenID: tokenID, waiterID: nil, with: .ready)
    }

    /// Other nodes claimed these logins' polls: a poll parked here with an older claim
    /// is replaced (409), and an older one that has not parked yet will be.
    func supersede(_ claims: [PollClaim]) {
        let replaced = state.withLock { state -> [Waiter] in
            if state.superseded.count + claims.count > Self.supersededCapacity { state.superseded.removeAll() }
            var replaced: [Waiter] = []
            for claim in claims {
                state.superseded[claim.tokenID] = max(state.superseded[claim.tokenID] ?? 0, claim.generation)
                if let waiter = state.waiters[claim.tokenID], waiter.claim < claim.generation {
                    Self.remove(claim.tokenID, userID: waiter.userID, from: &state)
                    replaced.append(waiter)
                }
            }
            return replaced
        }
        for waiter in replaced { waiter.notify(.replaced) }
    }

    /// Wakes every parked poll of a user, so each checks again that its login is still
    /// valid (after a password change ended them).
    func wake(userID: UserID) {
        let woken = state.withLock { state -> [Waiter] in
            guard let tokens = state.tokensByUser.removeValue(forKey: userID) else { return [] }
            return tokens.compactMap { state.waiters.removeValue(forKey: $0) }
        }
        for waiter in woken { waiter.notify(.ready) }
    }

    /// Ends the parked poll of a login that was replaced by a login elsewhere.
    func kick(tokenID: Int64, reason: String) {
        end(tokenID: tokenID, waiterID: nil, with: .kickedOut(reason))
    }

    /// Wakes polls whose time is up; call about twice a second.
    func expire() {
        let now = clock.seconds
        var expired: [Notify] = []
        state.withLock { state in
            for (token, waiter) in state.waiters where waiter.deadline <= now {
                Self.remove(token, userID: waiter.userID, from: &state)
                expired.append(waiter.notify)
            }
        }
        for notify in expired { notify(.timedOut) }
    }

    /// Answers every parked poll and refuses new ones (shutdown).
    func stop() {
        let all = state.withLock { state -> [Waiter] in
            state.stopped = true
            let all = Array(state.waiters.values)
            state.waiters.removeAll()
            state.tokensByUser.removeAll()
            return all
        }
        for waiter in all { waiter.notify(.cancelled) }
    }

    /// Polls parked now.
    var parkedCount: Int { state.withLock { $0.waiters.count } }
}
