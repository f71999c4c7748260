import IMProtocol
import Templates

/// A bot, loaded and checked: everything the runner, `switchboard test` and `explain`
/// need, with every default filled in.
public struct BotDefinition: Sendable {
    /// How the bot logs in.
    public struct Account: Sendable, Hashable, CustomStringConvertible {
        /// The account's username, lowered.
        public var username: String
        /// The account's password (after `${VAR}` interpolation).
        public var password: String
        /// Whether to create the account when it does not exist yet. Default false.
        public var register: Bool
        /// The nickname to register with; nil uses the username.
        public var nickname: String?
        /// The environment variable the file takes the password from (`${NAME}`), for
        /// messages that say what to set.
        public var passwordVariable: String?

        /// Creates account settings; an empty password means the runner generates one
        /// (with `register`) or refuses to start the bot.
        public init(username: String, password: String, register: Bool = false, nickname: String? = nil,
                    passwordVariable: String? = nil) {
            self.username = username
            self.password = password
            self.register = register
            self.nickname = nickname
            self.passwordVariable = passwordVariable
        }

        /// The settings with the password left out, safe for logs.
        public var description: String {
            "Account(username: \(username), register: \(register), nickname: \(nickname ?? "-"))"
        }
    }

    /// The profile the runner applies when the bot starts; nil fields are left alone.
    public struct Profile: Sendable, Hashable {
        /// Display name.
        public var nickname: String?
        /// The short line shown under the name.
        public var signature: String?
        /// The avatar image: an absolute path, resolved from the bot file's folder.
        public var avatarPath: String?
        /// Free-form profile fields.
        public var attrs: [String: String]

        /// Creates profile settings.
        public init(nickname: String? = nil, signature: String? = nil, avatarPath: String? = nil,
                    attrs: [String: String] = [:]) {
            self.nickname = nickname
            self.signature = signature
            self.avatarPath = avatarPath
            self.attrs = attrs
        }
    }

    /// What to do with events that arrived while the bot was down (`on_start.backlog`).
    public enum Backlog: Sendable, Hashable, CustomStringConvertible {
        /// Skip them: start from the newest event.
        case skip
        /// Handle every one of them.
        case all
        /// Handle those younger than this, skip older ones. The default, with 10 minutes.
        case newerThan(ConfigDuration)

        /// `skip`, `all`, or `newer_than 10m`.
        public var description: String {
            switch self {
            case .skip: "skip"
            case .all: "all"
            case .newerThan(let age): "newer_than \(age)"
            }
        }
    }

    /// Send budgets (`limits`): sends beyond them wait in their conversation's queue, which
    /// holds up to `queue` messages.
    public struct Limits: Sendable, Hashable {
        /// Per conversation. Default 1/s.
        public var perConversation: Rate
        /// Per group conversation, on top of `perConversation`. Default 20/min.
        public var perGroup: Rate
        /// Across all the bot's conversations. Default 30/s.
        public var total: Rate
        /// Messages one conversation's queue holds; past it the oldest reply is dropped
        /// (and audited). Default 100.
        public var queue: Int

        /// The most `queue` may be.
        public static let maximumQueue = 10_000

        /// The defaults.
        public static let standard = Limits(
            perConversation: Rate(count: 1, per: ConfigDuration(seconds: 1)),
            perGroup: Rate(count: 20, per: ConfigDuration(seconds: 60)),
            total: Rate(count: 30, per: ConfigDuration(seconds: 1)), queue: 100)

        /// Creates budgets.
        public init(perConversation: Rate, perGroup: Rate, total: Rate, queue: Int = 100) {
            self.perConversation = perConversation
            self.perGroup = perGroup
            self.total = total
            self.queue = min(max(queue, 1), Self.maximumQueue)
        }
    }

    /// The bot's name (`bot:`), unique among the bots of one runner.
    public let name: String
    /// The file it was loaded from, as given to the loader.
    public let file: String
    /// A short hash of the file's bytes, for audit logs: which version of the rules acted.
    public let version: String
    /// How it logs in.
    public let account: Account
    /// The profile to apply at start; nil when the file has no `profile:`.
    public let profile: Profile?
    /// The conversations it handles; empty means every conversation it is in.
    public let listen: [ConversationPattern]
    /// Groups it joins and rooms it enters at start, creating them when missing (`join:`).
    public let join: [ConversationAddress]
    /// What to do with the backlog at start.
    public let backlog: Backlog
    /// Send budgets.
    public let limits: Limits
    /// At most this many replies per conversation per minute (`loop_guard`); default 20.
    public let maxRepliesPerMinute: Int
    /// The state a new bot starts with (`state:`).
    public let initialState: [String: TemplateValue]
    /// The IANA time zone for `now.*` and `hours`/`days` (`timezone:`); nil for UTC.
    public let timezone: String?
    /// The rules, in order.
    public let rules: [Rule]
    /// Where moderation logs its cases, and who moderates (`moderation:`).
    public let moderation: ModerationSettings
    /// The settings of groups of `join:` the bot creates when they are missing, by name.
    public let groupSettings: [String: GroupSettings]
    /// The webhook routes it serves on the runner's listener (`webhooks:`).
    public let webhooks: [WebhookEndpoint]
    /// Where the bot lives (`platform:`): Switchboard unless the file says Matrix.
    public internal(set) var platform: BotPlatform = .switchboard
    /// The dedupe key of each webhook rule that has one (alert routes always do).
    let dedupe: [String: DedupeKey]

    init(name: String, file: String, version: String, account: Account, profile: Profile?,
         listen: [ConversationPattern], join: [ConversationAddress], backlog: Backlog, limits: Limits, maxRepliesPerMinute: Int,
         initialState: [String: TemplateValue], timezone: String?, rules: [Rule],
         moderation: ModerationSettings = ModerationSettings(), groupSettings: [String: GroupSettings] = [:],
         webhooks: [WebhookEndpoint] = [], dedupe: [String: DedupeKey] = [:]) {
        self.name = name
        self.file = file
        self.version = version
        self.account = account
        self.profile = profile
        self.listen = listen
        self.join = join
        self.backlog = backlog
        self.limits = limits
        self.maxRepliesPerMinute = maxRepliesPerMinute
        self.initialState = initialState
        self.timezone = timezone
        self.rules = rules
        self.moderation = moderation
        self.groupSettings = groupSettings
        self.webhooks = webhooks
        self.dedupe = dedupe
    }

    /// The `webhooks:` entry of `path`.
    public func webhook(path: String) -> WebhookEndpoint? {
        webhooks.first { $0.path == path }
    }

    /// Whether the bot handles events of this conversation.
    public func listens(to conversation: ConversationRef) -> Bool {
        listen.isEmpty || listen.contains { $0.matches(conversation) }
    }

    /// Each strike counter of the rules, as its first `strike` action counts it.
    var strikeCounters: [StrikeSpec] {
        var seen: Set<String> = []
        return rules.flatMap(\.actions).compactMap { action -> StrikeSpec? in
            guard case .moderation(.strike(let spec)) = action.spec, seen.insert(spec.counter).inserted else { return nil }
            return spec
        }
    }

    /// The rule with this name.
    public func rule(named name: String) -> Rule? {
        rules.first { $0.name == name }
    }
}
