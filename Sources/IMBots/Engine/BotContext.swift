import IMProtocol
import Templates

/// What rules know besides the event: who the bot is, its state, and the time.
public struct BotContext: Sendable {
    /// The bot's own account, as templates (`bot.*`) and `mentions_me` see it.
    public struct Identity: Sendable, Hashable {
        /// The bot's username.
        public var username: String
        /// The bot's user id, when logged in; used to recognise its own events.
        public var id: UserID?
        /// The bot's display name.
        public var nickname: String

        /// Creates an identity; the nickname defaults to the username.
        public init(username: String, id: UserID? = nil, nickname: String? = nil) {
            self.username = username.lowercased()
            self.id = id
            self.nickname = nickname ?? username
        }
    }

    /// The bot's own account.
    public var bot: Identity
    /// A snapshot of the bot's state (`state.*` in templates).
    public var state: [String: TemplateValue]
    /// The time the event is handled at (`now.*` in templates, `hours`/`days` matchers).
    public var now: Timestamp
    /// The IANA time zone for `now.*` and for `hours`/`days` without their own `timezone`.
    public var timezone: String
    /// What `rate` and `repeated` matchers counted before this event; nil: nothing.
    public var windows: EventWindows?
    /// Where moderation actions log their cases (`moderation.log`); nil: nowhere.
    public var modLog: ConversationAddress?
    /// The bot's strike counters, each as its first `strike` action counts it (decay,
    /// escalation), for `/strikes` answers.
    var strikeCounters: [StrikeSpec] = []

    /// Creates a context.
    public init(bot: Identity, state: [String: TemplateValue] = [:], now: Timestamp,
                timezone: String = "UTC") {
        self.bot = bot
        self.state = state
        self.now = now
        self.timezone = timezone
    }

    /// A context for a loaded bot: its account, its initial state unless `state` is given,
    /// and its `timezone` (UTC when the file sets none) unless `timezone` is given.
    public init(definition: BotDefinition, id: UserID? = nil,
                state: [String: TemplateValue]? = nil, now: Timestamp,
                timezone: String? = nil) {
        let nickname = definition.profile?.nickname ?? definition.account.nickname
        self.init(bot: Identity(username: definition.account.username, id: id, nickname: nickname),
                  state: state ?? definition.initialState, now: now,
                  timezone: timezone ?? definition.timezone ?? "UTC")
        self.modLog = definition.moderation.log
        self.strikeCounters = definition.strikeCounters
    }
}
