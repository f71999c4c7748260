import IMProtocol

/// `rate:` and `repeated:`: how often the rule's other conditions held recently.
///
/// `rate: {per: sender, more_than: 5, within: 10s}` holds for an event that makes more
/// than 5 within 10 seconds (this one included) from the same sender (`per:
/// conversation`: in the same conversation). `repeated: {times: 3, within: 10m}` holds
/// when the same sender sends the same text (normalised, so `FREE money` and `free
/// m0ney` are the same) for the third time within 10 minutes, in any conversation.
///
/// The event is counted once the rule's other conditions held (the matcher runs after
/// them), whether the matcher then holds or not; events a rule never looked at (an
/// earlier rule's `stop`) are not counted.
final class WindowCondition: Sendable {
    enum Kind: Sendable {
        /// More than `limit` events within the window.
        case rate(per: Subject, moreThan: Int)
        /// The same text at least `times` times within the window.
        case repeated(times: Int)
    }

    /// Whom a `rate` counts per.
    enum Subject: String, Sendable, CaseIterable {
        case sender, conversation
    }

    let kind: Kind
    /// The window, in milliseconds.
    let within: Int64
    /// Where the matcher is written: names its counters.
    let id: String

    init(kind: Kind, within: Int64, id: String) {
        self.kind = kind
        self.within = within
        self.id = id
    }

    /// Whether the event, counted with the earlier ones, passes the limit; records the hit.
    func matches(_ facts: inout EventFacts) -> Bool {
        guard let (hit, threshold) = hit(&facts) else { return false }
        facts.windowHits.append(hit)
        return seen(hit, &facts) + 1 >= threshold
    }

    func failure(_ facts: inout EventFacts) -> String {
        guard let (hit, threshold) = hit(&facts) else {
            switch kind {
            case .rate(let per, _): return "rate: the event has no \(per.rawValue) to count per"
            case .repeated: return "repeated: the event has no text and sender"
            }
        }
        let count = seen(hit, &facts) + 1
        switch kind {
        case .rate(let per, let limit):
            return "rate: \(count) within \(window) per \(per.rawValue) '\(hit.key.subject)' (this one included), "
                + "rule wants more than \(limit)"
        case .repeated:
            return "repeated: this text \(count) time(s) within \(window) from '\(hit.key.subject)', "
                + "rule wants \(threshold)"
        }
    }

    /// What the counter holds with this event, for `explain`.
    func state(_ facts: inout EventFacts) -> String {
        guard let (hit, _) = hit(&facts) else { return summary }
        let count = seen(hit, &facts) + 1
        switch kind {
        case .rate(let per, let limit):
            return "rate: \(count) within \(window) per \(per.rawValue) '\(hit.key.subject)', more than \(limit)"
        case .repeated(let times):
            return "repeated: this text \(count) time(s) within \(window), \(times) wanted"
        }
    }

    var summary: String {
        switch kind {
        case .rate(let per, let limit): "more than \(limit) within \(window) per \(per.rawValue)"
        case .repeated(let times): "the same text \(times) times within \(window)"
        }
    }

    /// After everything else: the count is of events that passed the other conditions.
    static let cost = 10_000

    private var window: String { ConfigDurationText.describe(milliseconds: within) }

    /// The counter this event adds to, and how many events (with it) it takes.
    private func hit(_ facts: inout EventFacts) -> (WindowHit, Int)? {
        switch kind {
        case .rate(let per, let limit):
            let subject: String? = per == .sender ? facts.actor : facts.conversation.map { $0.id.description }
            guard let subject else { return nil }
            return (WindowHit(key: WindowKey(matcher: id, subject: subject, text: 0), within: within, keep: limit + 1),
                    limit + 1)
        case .repeated(let times):
            guard let actor = facts.actor, facts.text != nil else { return nil }
            let text = Self.fingerprint(facts.normalized.bytes)
            return (WindowHit(key: WindowKey(matcher: id, subject: actor, text: text), within: within, keep: times),
                    times)
        }
    }

    private func seen(_ hit: WindowHit, _ facts: inout EventFacts) -> Int {
        facts.windows?.count(hit.key, within: within, now: facts.now.milliseconds) ?? 0
    }

    /// FNV-1a of the normalised text: the same on every run, unlike `Hasher`.
    static func fingerprint(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }
}

/// Durations in milliseconds as people write them.
enum ConfigDurationText {
    static func describe(milliseconds: Int64) -> String {
        ConfigDuration(seconds: Double(milliseconds) / 1000).description
    }
}
