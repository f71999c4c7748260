import IMProtocol
import MatrixClient
import YAMLCoding

/// A bot file as written: decoded strictly, with every value-level check done while
/// decoding so that all such problems are reported together. `BotLoader` then checks
/// what spans the file (rule names, examples' references, the avatar) and builds the
/// `BotDefinition`.
struct BotFile: Decodable, Sendable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case bot, account, profile, listen, join, onStart, limits, loopGuard, state, timezone, rules
        case webhooks, moderation, platform
    }

    var bot: Name
    var account: AccountSection
    var profile: ProfileSection?
    var listen: [ConversationPattern]?
    var join: [JoinTarget]?
    var onStart: OnStartSection?
    var limits: LimitsSection?
    var loopGuard: LoopGuardSection?
    var state: [String: YAMLValue]?
    var timezone: TimeZoneName?
    var rules: [Rule]
    /// Whether the `state:` section and every rule's actions decoded, so that every state
    /// key the bot declares is known (the template check accepts any key otherwise).
    var knowsAllState = true
    var moderation: ModerationSection?
    /// `platform:`; nil: Switchboard.
    var platform: PlatformSection?
    /// The `webhooks:` entries that read without problems (theirs are reported).
    var webhooks: [WebhookEndpoint] = []
    /// Where `webhooks:` is written.
    var webhooksMark: YAMLMark?
    /// Where `join:` and `listen:` are written.
    var joinMark: YAMLMark?
    var listenMark: YAMLMark?

    /// Reads every section even when an earlier one is wrong, so that `check` reports the
    /// problems of the whole file at once (the loader refuses the file if there are any).
    init(from decoder: any Decoder) throws {
        let context = decoder.botDecoding
        context.reportLocalTags(in: try decoder.node())
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if container.contains(.webhooks) {
            let node = try container.decode(YAMLNode.self, forKey: .webhooks)
            webhooksMark = node.mark
            webhooks = Self.webhooks(node, context)
        }
        bot = try context.attempt { try container.decode(Name.self, forKey: .bot) } ?? Name.unnamed
        platform = try context.attempt { try container.decodeIfPresent(PlatformSection.self, forKey: .platform) } ?? nil
        if case .matrix(let matrix)? = platform?.platform {
            context.useMatrix(rooms: matrix.rooms)
        } else if container.contains(.platform), try container.decode(YAMLNode.self, forKey: .platform)["matrix"] != nil {
            // A Matrix block with problems (reported): its rooms still read as Matrix rooms.
            context.useMatrix(rooms: [:])
        }
        if !container.contains(.account), case .matrix(let matrix)? = platform?.platform {
            // A Matrix bot's account is on its homeserver: the file needs no `account:`.
            account = AccountSection(matrixUser: matrix.user.rawValue)
        } else {
            account = try context.attempt { try container.decode(AccountSection.self, forKey: .account) }
                ?? AccountSection.unnamed
        }
        profile = try context.attempt { try container.decodeIfPresent(ProfileSection.self, forKey: .profile) } ?? nil
        listen = try context.attempt { try container.decodeIfPresent([ConversationPattern].self, forKey: .listen) } ?? nil
        join = try context.attempt { try container.decodeIfPresent([JoinTarget].self, forKey: .join) } ?? nil
        if container.contains(.join) { joinMark = try container.decode(YAMLNode.self, forKey: .join).mark }
        if container.contains(.listen) { listenMark = try container.decode(YAMLNode.self, forKey: .listen).mark }
        onStart = try context.attempt { try container.decodeIfPresent(OnStartSection.self, forKey: .onStart) } ?? nil
        limits = try context.attempt { try container.decodeIfPresent(LimitsSection.self, forKey: .limits) } ?? nil
        loopGuard = try context.attempt { try container.decodeIfPresent(LoopGuardSection.self, forKey: .loopGuard) } ?? nil
        let state = try context.attempt { try container.decodeIfPresent([String: YAMLValue].self, forKey: .state) }
        self.state = state ?? nil
        timezone = try context.attempt { try container.decodeIfPresent(TimeZoneName.self, forKey: .timezone) } ?? nil
        moderation = try context.attempt { try container.decodeIfPresent(ModerationSection.self, forKey: .moderation) }
            ?? nil
        let (rules, complete) = try Self.rules(in: container, context)
        self.rules = rules
        knowsAllState = state != nil && complete && rules.allSatisfy(\.decodedActions)
        if case .matrix(var matrix)? = platform?.platform {
            // The rooms written as themselves are joined at start like the named ones.
            matrix.rooms.merge(context.writtenMatrixRooms) { named, _ in named }
            platform?.platform = .matrix(matrix)
        }
        context.keep(self)
    }
}

extension BotFile {
    /// The entries of `webhooks:`, each checked; every problem is recorded.
    private static func webhooks(_ node: YAMLNode, _ context: BotDecoding) -> [WebhookEndpoint] {
        guard let items = node.sequence else {
            context.record(context.error(.typeMismatch, "'webhooks' must be a list of entries (- path: …)", at: node.mark))
            return []
        }
        var endpoints: [WebhookEndpoint] = []
        for item in items {
            do {
                let endpoint = try WebhookRoute.parse(yaml: item, file: context.file) { context.variable(at: $0) }
                if endpoints.contains(where: { $0.path == endpoint.path }) {
                    context.record(context.error(.invalidValue, "webhook path '\(endpoint.path)' is listed twice",
                                                 at: item["path"]?.mark ?? item.mark))
                } else {
                    endpoints.append(endpoint)
                }
            } catch {
                for problem in error.errors { context.record(problem) }
            }
        }
        return endpoints
    }

    /// The rules that decode: a broken rule is reported and left out, so the others are
    /// checked, and so are the checks across the file (duplicate names, examples).
    private static func rules(in container: KeyedDecodingContainer<CodingKeys>,
                              _ context: BotDecoding) throws -> (rules: [Rule], complete: Bool) {
        guard container.contains(.rules) else { return ([], true) }
        guard var list = try context.attempt({ try container.nestedUnkeyedContainer(forKey: .rules) }) else {
            return ([], false)
        }
        var rules: [Rule] = []
        var complete = true
        while !list.isAtEnd {
            if let rule = try context.attempt({ try list.decode(Rule.self) }) {
                rules.append(rule)
            } else {
                complete = false
                _ = try list.decode(YAMLNode.self)
            }
        }
        return (rules, complete)
    }
}

/// `account: {username, password, register, nickname}`.
///
/// The password may be empty or left out: the runner then generates one at the first
/// start (with `register: true`) or refuses, naming the variable to set. Shipped bots
/// write `password: ${NAME_PASSWORD:-}`, so no file carries a default secret.
struct AccountSection: Decodable, Sendable {
    enum CodingKeys: String, CodingKey, CaseIterable { case username, password, register, nickname }

    var username: Located<String>
    var password: Located<String>?
    var register: Bool?
    var nickname: String?
    /// `NAME` when the password is written `${NAME}` or `${NAME:-…}`.
    var passwordVariable: String?

    init(from decoder: any Decoder) throws {
        let context = decoder.botDecoding
        let container = try decoder.container(keyedBy: CodingKeys.self)
        username = try container.decode(Located<String>.self, forKey: .username)
        password = try container.decodeIfPresent(Located<String>.self, forKey: .password)
        register = try container.decodeIfPresent(Bool.self, forKey: .register)
        nickname = try container.decodeIfPresent(String.self, forKey: .nickname)
        // `${NAME:-}` unset reads as an empty scalar, that is no value: the node still has the mark.
        if container.contains(.password) {
            passwordVariable = context.variable(at: try container.decode(YAMLNode.self, forKey: .password).mark)
        }
        do {
            username.value = try Validate.username(username.value)
        } catch {
            context.report(.invalidValue, "invalid username '\(username.value)': \(Self.reason(error))",
                           at: username.mark)
        }
        if let password, !password.value.isEmpty, !Limits.passwordBytes.contains(password.value.utf8.count) {
            context.report(.invalidValue,
                "the password must be \(Limits.passwordBytes.lowerBound) to \(Limits.passwordBytes.upperBound) "
                    + "bytes long (it is \(password.value.utf8.count)); leave it empty to have the runner generate one",
                at: password.mark)
        }
    }

    /// Stands in for a section that failed to decode (its problems are reported).
    static let unnamed = AccountSection(username: Located("-", mark: .unknown))

    private init(username: Located<String>) {
        self.username = username
    }

    /// A Matrix bot's, which names the bot by its Matrix user id.
    init(matrixUser: String) {
        self.init(username: Located(matrixUser, mark: .unknown))
    }

    /// The message of a validation error, without the API error's wrapping.
    static func reason(_ error: any Error) -> String {
        (error as? APIError)?.message ?? "\(error)"
    }
}

/// `profile: {nickname, signature, avatar, attrs}`.
struct ProfileSection: Decodable, Sendable {
    enum CodingKeys: String, CodingKey, CaseIterable { case nickname, signature, avatar, attrs }

    var nickname: String?
    var signature: String?
    var avatar: Located<String>?
    var attrs: [String: String]?

    init(from decoder: any Decoder) throws {
        let context = decoder.botDecoding
        let container = try decoder.container(keyedBy: CodingKeys.self)
        nickname = try container.decodeIfPresent(String.self, forKey: .nickname)
        signature = try container.decodeIfPresent(String.self, forKey: .signature)
        avatar = try container.decodeIfPresent(Located<String>.self, forKey: .avatar)
        attrs = try container.decodeIfPresent([String: String].self, forKey: .attrs)
        let update = ProfileUpdate(nickname: nickname, signature: signature, attrs: attrs)
        do {
            try update.validate()
        } catch {
            throw context.failure(.invalidValue, "invalid profile: \(AccountSection.reason(error))",
                                  at: decoder.mark, path: decoder.codingPath)
        }
    }
}

/// `on_start: {backlog, within}`.
struct OnStartSection: Decodable, Sendable {
    enum Backlog: String, Decodable, CaseIterable { case skip, all, newerThan = "newer_than" }
    enum CodingKeys: String, CodingKey, CaseIterable { case backlog, within }

    var backlog: BotDefinition.Backlog

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try container.decodeIfPresent(Backlog.self, forKey: .backlog) ?? .newerThan
        let within = try container.decodeIfPresent(Located<ConfigDuration>.self, forKey: .within)
        switch kind {
        case .skip, .all:
            if let within {
                throw decoder.botDecoding.failure(.invalidValue,
                    "'within' only applies to 'backlog: newer_than'", at: within.mark,
                    path: container.codingPath + [CodingKeys.within])
            }
            backlog = kind == .skip ? .skip : .all
        case .newerThan:
            backlog = .newerThan(within?.value ?? ConfigDuration(seconds: 600))
        }
    }
}

/// `limits: {per_conversation, per_group, total, queue}`.
struct LimitsSection: Decodable, Sendable {
    enum CodingKeys: String, CodingKey, CaseIterable { case perConversation, perGroup, total, queue }

    var perConversation: Rate?
    var perGroup: Rate?
    var total: Rate?
    var queue: Int?

    init(from decoder: any Decoder) throws {
        let context = decoder.botDecoding
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func rate(_ key: CodingKeys) throws -> Rate? {
            try context.attempt { try container.decodeIfPresent(Rate.self, forKey: key) } ?? nil
        }
        perConversation = try rate(.perConversation)
        perGroup = try rate(.perGroup)
        total = try rate(.total)
        if let queue = try container.decodeIfPresent(Located<Int>.self, forKey: .queue) {
            if (1...BotDefinition.Limits.maximumQueue).contains(queue.value) {
                self.queue = queue.value
            } else {
                context.report(.invalidValue, "limits.queue must be 1 to \(BotDefinition.Limits.maximumQueue) messages",
                               at: queue.mark)
            }
        }
    }
}

/// `loop_guard: {max_replies_per_minute}`.
struct LoopGuardSection: Decodable, Sendable {
    enum CodingKeys: String, CodingKey, CaseIterable { case maxRepliesPerMinute }

    var maxRepliesPerMinute: Int

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let value = try container.decode(Located<Int>.self, forKey: .maxRepliesPerMinute)
        guard value.value >= 1 else {
            throw decoder.botDecoding.failure(.invalidValue, "max_replies_per_minute must be at least 1",
                                              at: value.mark, path: container.codingPath)
        }
        maxRepliesPerMinute = value.value
    }
}

/// One entry of `join:`: `group:NAME` (joined, created when missing) or `room:NAME`
/// (entered, created when missing), or `{group: NAME, policy: open, new_members:
/// restricted, slow_mode: 30s}`: a group the bot creates with these settings when it is
/// missing (and so owns).
struct JoinTarget: Decodable, Sendable {
    enum CodingKeys: String, CodingKey, CaseIterable { case group, policy, newMembers, slowMode }

    var address: ConversationAddress
    /// The settings a group created by the bot gets; nil: the server's defaults.
    var settings: GroupSettings?

    init(from decoder: any Decoder) throws {
        if try decoder.node().mapping != nil {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let name = try container.decode(Located<String>.self, forKey: .group)
            let bare = name.value.hasPrefix("group:") ? String(name.value.dropFirst(6)) : name.value
            if MatrixRoomAddress(bare) != nil {
                throw decoder.botDecoding.failure(
                    .invalidValue, "'\(name.value)' is a Matrix room: the bot does not create it, so it has no settings "
                        + "to give; write it as a plain entry (join: ['\(bare)'])",
                    at: name.mark, path: container.codingPath + [CodingKeys.group])
            }
            do {
                _ = try Validate.conversationName(bare)
            } catch {
                throw decoder.botDecoding.failure(.invalidValue, "'\(name.value)': \(AccountSection.reason(error))",
                                                  at: name.mark, path: container.codingPath + [CodingKeys.group])
            }
            address = .group(bare.lowercased())
            var settings = GroupSettings(
                join: try container.decodeIfPresent(JoinPolicy.self, forKey: .policy),
                newMembers: try container.decodeIfPresent(NewMemberPolicy.self, forKey: .newMembers),
                slowMode: try container.decodeIfPresent(ConfigDuration.self, forKey: .slowMode))
            if settings.slowMode != nil, (try? settings.slowModeSeconds()) == nil {
                throw decoder.botDecoding.failure(.invalidValue, "slow_mode is whole seconds from 0 (off) to 1d",
                                                  at: decoder.mark, path: container.codingPath + [CodingKeys.slowMode])
            }
            if settings.isEmpty { settings = GroupSettings() }
            self.settings = settings
            return
        }
        let text = try decoder.singleValueContainer().decode(String.self)
        let parsed = try decoder.botDecoding.conversation(text, at: decoder.mark, path: decoder.codingPath)
        switch parsed {
        case .group?  where parsed?.matrixRoom != nil:
            address = parsed ?? .group(text)
        case .group(let name)?, .room(let name)?:
            do {
                _ = try Validate.conversationName(name)
            } catch {
                throw decoder.botDecoding.failure(
                    .invalidValue, "'\(text)': \(AccountSection.reason(error))", at: decoder.mark, path: decoder.codingPath)
            }
            address = parsed ?? .group(name)
        default:
            throw decoder.botDecoding.failure(
                .invalidValue, "'\(text)' cannot be joined: write group:NAME or room:NAME (on Matrix also "
                    + "'!id:server' or '#alias:server')",
                at: decoder.mark, path: decoder.codingPath)
        }
    }
}
