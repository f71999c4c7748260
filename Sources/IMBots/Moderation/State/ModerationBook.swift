import IMProtocol
import Synchronization

/// The one place a bot's strikes, cases, pending verifications and trigger times change.
///
/// Each change applies here under a lock and is handed, in the same step, to `persist`:
/// the runner's journal (so it survives a restart and replays in order), or nothing for
/// `switchboard test`. A check and the change it leads to are never split by another
/// event handled at the same time (two strikes of one member count twice; two cases never
/// get one number). Changes carry the acting action's idempotency key, so an event handled
/// again after a crash finds its strike and its case instead of adding new ones.
public final class ModerationBook: Sendable {
    private let current: Mutex<ModerationState>
    private let persist: @Sendable (ModerationChange) -> Void
    /// Rung when a verification or a quiet watch changes, for the service that keeps
    /// their deadlines.
    let changed = Doorbell()

    init(state: ModerationState, persist: @escaping @Sendable (ModerationChange) -> Void) {
        current = Mutex(state)
        self.persist = persist
    }

    /// An empty book that keeps nothing: for examples and tests.
    public convenience init() {
        self.init(state: ModerationState()) { _ in }
    }

    var state: ModerationState { current.withLock { $0 } }

    private func change(_ body: (inout ModerationState) -> ModerationChange?) {
        current.withLock { state in
            guard let change = body(&state) else { return }
            state.apply(change)
            persist(change)
        }
    }

    // MARK: Strikes

    /// Adds `points` to `user`'s counter after decaying it; the same `key` again adds nothing.
    func strike(counter: String, user: String, points: Int, decay: Int64?, key: String, at now: Int64)
        -> StrikeOutcome
    {
        let stateKey = ModerationState.strikeKey(counter, user.lowercased())
        var result = 0
        change { state in
            let before = state.strikes[stateKey]
            if let before, before.lastKey == key {
                result = before.points
                return nil
            }
            var count = before?.current(at: now, decay: decay) ?? StrikeCount(points: 0, since: now, lastKey: key)
            count.points = max(0, count.points + points)
            count.since = now
            count.lastKey = key
            result = count.points
            return .strike(key: stateKey, count: count)
        }
        return StrikeOutcome(counter: counter, user: user.lowercased(), points: result, step: nil)
    }

    /// One line per counter of `counters` on which `user` has points at `now`: the
    /// points, when the next one falls off and what the next strike does
    /// (`spam: 2 points; one falls off in 23h 58m (one per 1d without a strike); the next
    /// strike: mute 1d`).
    func strikeLines(of user: String, counters: [StrikeSpec], at now: Int64) -> [String] {
        counters.compactMap { spec in
            let stateKey = ModerationState.strikeKey(spec.counter, user.lowercased())
            guard let count = current.withLock({ $0.strikes[stateKey] })?.current(at: now, decay: spec.decayMilliseconds),
                  count.points > 0 else { return nil }
            var line = "\(spec.counter): \(count.points) point\(count.points == 1 ? "" : "s")"
            if let decay = spec.decayMilliseconds, let text = spec.decay?.description {
                line += "; one falls off in " + SilenceDraft.format(.milliseconds(max(0, count.since + decay - now)))
                    + " (one per \(text) without a strike)"
            } else {
                line += "; they never fall off"
            }
            if !spec.escalate.isEmpty {
                let next = spec.escalate[min(count.points + spec.points, spec.escalate.count) - 1]
                line += "; the next strike: \(next.description)"
            }
            return line
        }
    }

    /// `user`'s points on a counter at `now`, decayed.
    func points(counter: String, user: String, decay: Int64?, at now: Int64) -> Int {
        let stateKey = ModerationState.strikeKey(counter, user.lowercased())
        return current.withLock { $0.strikes[stateKey]?.current(at: now, decay: decay).points ?? 0 }
    }

    // MARK: Cases

    /// Opens a case with the next number (the number in `draft` is ignored); an action's
    /// key seen before gives back its case.
    func open(_ draft: ModerationCase) -> ModerationCase {
        var opened = draft
        change { state in
            if let existing = state.modCase(key: draft.key) {
                opened = existing
                return nil
            }
            opened.number = state.nextCase
            return .opened(opened)
        }
        return opened
    }

    /// The case numbered `number`, if it is still kept.
    public func modCase(_ number: Int) -> ModerationCase? { current.withLock { $0.modCase(number) } }

    /// Marks a case reversed; false when it is unknown or cannot be undone.
    func markUndone(_ number: Int, by admin: String) -> Bool {
        var done = false
        change { state in
            guard let found = state.modCase(number), found.undoable else { return nil }
            done = true
            return .undone(number: number, by: admin)
        }
        return done
    }

    // MARK: Verification, triggers

    /// Starts or ends (nil) a newcomer's verification.
    func setVerification(group: String, user: String, _ pending: PendingVerification?) {
        let key = group.lowercased() + "/" + user.lowercased()
        change { state in
            guard state.verifications[key] != pending else { return nil }
            return .verification(key: key, pending: pending)
        }
        changed.ring()
    }

    /// The verification `user` owes, in any group.
    func verification(of user: String) -> PendingVerification? {
        let name = user.lowercased()
        return current.withLock { state in state.verifications.values.first { $0.user == name } }
    }

    /// Notes a watched event of a `quiet:` trigger (nil ends the watch: the trigger fired).
    func setQuiet(rule: String, conversation: ConversationRef, _ watch: QuietWatch?) {
        let key = rule + "/" + conversation.id.description
        change { state in
            guard state.quiet[key] != watch else { return nil }
            return .quiet(key: key, watch: watch)
        }
        changed.ring()
    }

    // MARK: Moderators

    /// The account `name` of `moderation.moderators` is bound to, if any.
    func moderator(named name: String) -> Int64? {
        current.withLock { $0.moderators?[name.lowercased()] }
    }

    /// Whether the account `id` is a bound moderator.
    func isModerator(id: Int64) -> Bool {
        current.withLock { $0.moderators?.values.contains(id) ?? false }
    }

    /// Binds `name` to the account `id`, for good (until the name leaves the file).
    func bindModerator(_ name: String, id: Int64?) {
        change { state in state.moderators?[name.lowercased()] == id ? nil : .moderator(name: name.lowercased(), id: id) }
    }

    /// Notes that a schedule rule ran (or skipped its missed runs) up to `at`.
    func setScheduled(rule: String, at: Int64) {
        change { state in state.schedules[rule] == at ? nil : .scheduled(rule: rule, at: at) }
    }
}
