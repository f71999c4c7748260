/// A dead-man's switch: fires when an expected notification (Alertmanager's
/// always-firing `Watchdog`) has not arrived for ``interval``, so a broken alert path
/// is itself an alert.
///
/// A pure timer model: the runner passes every notification the rule's `match:` accepts
/// to ``observe(now:)``, calls ``check(now:)`` at ``deadline``, and keeps the value in the
/// journal. Time is wall milliseconds from an injected clock.
public struct DeadMansSwitch: Sendable, Hashable, Codable {
    /// What happened, for the runner to announce.
    public enum Transition: Sendable, Hashable {
        /// Nothing arrived within the interval: the alert path is broken.
        case fired(silentSince: Int64)
        /// The expected notification arrived again after the switch fired.
        case recovered(silentFor: Duration)
    }

    /// How long it may stay away. Alertmanager repeats a firing group every
    /// `repeat_interval`, so set this to more than that (e.g. twice).
    public var interval: Duration
    /// When it last arrived (or when the switch was armed).
    public private(set) var lastSeen: Int64
    /// Whether the switch has fired and not yet recovered.
    public private(set) var isFired = false

    /// Arms the switch at `now`: the first deadline is a full interval away.
    public init(interval: Duration, now: Int64) {
        self.interval = interval
        self.lastSeen = now
    }

    /// When ``check(now:)`` fires unless the notification arrives first; nil while fired.
    public var deadline: Int64? { isFired ? nil : lastSeen + interval.milliseconds }

    /// Re-arms on the expected notification; reports recovery when the switch had fired.
    public mutating func observe(now: Int64) -> Transition? {
        let silent = now - lastSeen
        lastSeen = max(lastSeen, now)
        guard isFired else { return nil }
        isFired = false
        return .recovered(silentFor: .milliseconds(silent))
    }

    /// Gives the path a full interval from `now` (the runner starting: it heard nothing
    /// while it was down, which says nothing about the path). A fired switch stays fired.
    public mutating func rearm(now: Int64) {
        guard !isFired else { return }
        lastSeen = max(lastSeen, now)
    }

    /// Fires once when the deadline has passed.
    public mutating func check(now: Int64) -> Transition? {
        guard let deadline, now >= deadline else { return nil }
        isFired = true
        return .fired(silentSince: lastSeen)
    }
}
