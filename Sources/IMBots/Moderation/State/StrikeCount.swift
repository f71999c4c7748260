/// A member's points on one strike counter, and how they decay.
///
/// One point falls off for every `decay` that passes without a new strike, counted from
/// the last strike (or the last point that fell off): a member who behaves returns to
/// zero, and one who strikes again starts the wait over.
struct StrikeCount: Sendable, Hashable, Codable {
    var points: Int
    /// Wall time (ms) the decay is counted from.
    var since: Int64
    /// The idempotency key of the last strike: the same action again adds nothing.
    var lastKey: String

    /// The points at `now`, with `decay` milliseconds per point (nil: no decay).
    func current(at now: Int64, decay: Int64?) -> StrikeCount {
        guard let decay, decay > 0, now > since, points > 0 else { return self }
        let fallen = Int(min(Int64(points), (now - since) / decay))
        var decayed = self
        decayed.points -= fallen
        decayed.since = decayed.points == 0 ? now : since + Int64(fallen) * decay
        return decayed
    }

    enum CodingKeys: String, CodingKey {
        case points, since
        case lastKey = "key"
    }
}

/// What one strike did.
public struct StrikeOutcome: Sendable, Hashable {
    /// The counter (`spam`).
    public var counter: String
    public var user: String
    /// The points after the strike (before, for one only described).
    public var points: Int
    /// The escalation step the points reached, from 0; nil without `escalate`.
    public var step: Int?

    /// `spam strike 2`.
    public var label: String { "\(counter) strike \(points)" }
}
