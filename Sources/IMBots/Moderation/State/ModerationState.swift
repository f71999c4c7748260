import IMProtocol

/// What moderation keeps in a bot's journal: strikes, cases, newcomers waiting for
/// verification, the quiet-period watches and when each schedule last ran. Changed only
/// by `ModerationChange`s through the journal (`JournalRecord.Change.moderation`).
struct ModerationState: Sendable, Equatable, Codable {
    /// By `counter/user`.
    var strikes: [String: StrikeCount] = [:]
    /// The latest cases, oldest first; at most `caseLimit`.
    var cases: [ModerationCase] = []
    /// The number the next case gets.
    var nextCase = 1
    /// By `group/user`.
    var verifications: [String: PendingVerification] = [:]
    /// By `rule/conversation`.
    var quiet: [String: QuietWatch] = [:]
    /// The wall time (ms) of each schedule rule's last run, by rule.
    var schedules: [String: Int64] = [:]
    /// The account each name of `moderation.moderators` is bound to, by name: the first
    /// account the bot saw with that name. A name that later belongs to another account
    /// (deleted and registered again) is not a moderator. Nil in journals from before.
    var moderators: [String: Int64]?

    /// The most cases kept; older ones are forgotten (the mod-log still has them).
    static let caseLimit = 10_000
    /// The most strike counters kept; those at zero go first.
    static let strikeLimit = 100_000
    /// The most newcomers waiting for verification at once (a raid's worth).
    static let verificationLimit = 20_000

    var isEmpty: Bool {
        strikes.isEmpty && cases.isEmpty && verifications.isEmpty && quiet.isEmpty && schedules.isEmpty
            && (moderators ?? [:]).isEmpty
    }

    /// The case numbered `number`, if it is still kept.
    func modCase(_ number: Int) -> ModerationCase? {
        guard let first = cases.first, number >= first.number else { return nil }
        // Numbers ascend without gaps, so the case is at its offset (searched if not).
        let offset = number - first.number
        if offset < cases.count, cases[offset].number == number { return cases[offset] }
        return cases.first { $0.number == number }
    }

    /// The case opened for an action's key, if there is one (searched from the newest).
    func modCase(key: String) -> ModerationCase? {
        cases.last { $0.key == key }
    }

    static func strikeKey(_ counter: String, _ user: String) -> String { counter + "/" + user }

    mutating func apply(_ change: ModerationChange) {
        switch change {
        case .strike(let key, let count):
            strikes[key] = count
            if strikes.count > Self.strikeLimit {
                strikes = strikes.filter { $0.value.points > 0 }
                if strikes.count > Self.strikeLimit {
                    for key in strikes.sorted(by: { $0.value.since < $1.value.since }).prefix(strikes.count - Self.strikeLimit)
                        .map(\.key) { strikes.removeValue(forKey: key) }
                }
            }
        case .opened(let opened):
            guard modCase(key: opened.key) == nil else { return }
            cases.append(opened)
            nextCase = max(nextCase, opened.number + 1)
            if cases.count > Self.caseLimit { cases.removeFirst(cases.count - Self.caseLimit) }
        case .undone(let number, let by):
            if let index = cases.lastIndex(where: { $0.number == number }) { cases[index].undoneBy = by }
        case .verification(let key, let pending):
            verifications[key] = pending
            if verifications.count > Self.verificationLimit {
                // The earliest deadlines go: those newcomers stay restricted, unable to post.
                for key in verifications.sorted(by: { $0.value.deadline < $1.value.deadline })
                    .prefix(verifications.count - Self.verificationLimit).map(\.key) {
                    verifications.removeValue(forKey: key)
                }
            }
        case .quiet(let key, let watch):
            quiet[key] = watch
        case .scheduled(let rule, let at):
            schedules[rule] = at
        case .moderator(let name, let id):
            var bound = moderators ?? [:]
            bound[name] = id
            moderators = bound.isEmpty ? nil : bound
        }
    }
}

/// One change of `ModerationState`, as journaled.
enum ModerationChange: Sendable, Equatable, Codable {
    /// A strike counter's new value.
    case strike(key: String, count: StrikeCount)
    /// A case opened.
    case opened(ModerationCase)
    /// A case reversed by `/undo`.
    case undone(number: Int, by: String)
    /// A newcomer to verify, or one no longer waiting (nil).
    case verification(key: String, pending: PendingVerification?)
    /// A quiet-period watch moved on, or ended (nil).
    case quiet(key: String, watch: QuietWatch?)
    /// A schedule rule ran (or its missed runs were skipped) up to this wall time (ms).
    case scheduled(rule: String, at: Int64)
    /// A moderator's name bound to an account (its id), or unbound (nil).
    case moderator(name: String, id: Int64?)
}

/// A newcomer who was sent a challenge and may not post until they answer it.
struct PendingVerification: Sendable, Hashable, Codable {
    var group: String
    var user: String
    /// The answer, normalised (`TextNormalizer`), as its words joined.
    var answer: String
    /// Wall time (ms) after which they are removed.
    var deadline: Int64
    /// The rule that asked, for cases.
    var rule: String
    /// What happens at the deadline: `kick` or `ban`.
    var fail: String
    /// Wrong answers so far.
    var attempts: Int = 0
}

/// The last event a `quiet:` trigger watches for, in one conversation.
struct QuietWatch: Sendable, Hashable, Codable {
    /// Wall time (ms) of the last watched event.
    var last: Int64
    /// The conversation, for the trigger's event.
    var conversation: ConversationRef
}
