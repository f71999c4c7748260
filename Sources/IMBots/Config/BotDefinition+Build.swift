import Foundation
import MatrixClient
import Templates
import YAMLCoding

extension BotDefinition {
    /// Checks what spans the whole file and fills in defaults.
    init(_ parsed: BotFile, file: String, directory: String, version: String) throws(BotConfigErrors) {
        var errors: [BotConfigError] = []
        func report(_ code: BotConfigError.Code, _ message: String, _ location: SourceLocation) {
            errors.append(BotConfigError(code: code, location: location, message: message))
        }

        var firstByName: [String: Rule] = [:]
        for rule in parsed.rules {
            if let first = firstByName[rule.name] {
                report(.duplicateRule, "duplicate rule name '\(rule.name)' (first defined at "
                       + "\(first.location.line):\(first.location.column))", rule.location)
            } else {
                firstByName[rule.name] = rule
            }
        }
        let ruleNames = parsed.rules.map(\.name)
        let httpNames = Set(parsed.rules.flatMap { rule in
            rule.actions.compactMap { action -> String? in
                if case .http(let spec) = action.spec { return spec.name }
                return nil
            }
        })
        for rule in parsed.rules {
            for example in rule.examples {
                for name in example.expectation.rules ?? [] where firstByName[name.value] == nil {
                    report(.unknownReference,
                           "example expects rule '\(name.value)', which this bot does not have"
                               + Suggestion.hint(for: name.value, among: ruleNames),
                           SourceLocation(file: file, mark: name.mark))
                }
                for name in example.httpNames where !httpNames.contains(name.value) {
                    report(.unknownReference,
                           "example scripts an http response for '\(name.value)', but no http action has "
                               + "'as: \(name.value)'" + Suggestion.hint(for: name.value, among: httpNames),
                           SourceLocation(file: file, mark: name.mark))
                }
            }
        }

        let state = parsed.knowsAllState
            ? TemplateCheck.declaredState(initial: parsed.state ?? [:], rules: parsed.rules) : nil
        let formats = Dictionary(parsed.webhooks.map { ($0.path, $0.route.format) }, uniquingKeysWith: { first, _ in first })
        let templates = TemplateCheck(file: file, state: state, webhooks: formats)
        for rule in parsed.rules { errors += templates.problems(in: rule) }

        var profile: Profile?
        if let section = parsed.profile {
            var avatarPath: String?
            if let avatar = section.avatar {
                let url = avatar.value.hasPrefix("/") ? URL(fileURLWithPath: avatar.value)
                    : URL(fileURLWithPath: directory).appendingPathComponent(avatar.value)
                let path = url.standardizedFileURL.path
                var isDirectory: ObjCBool = false
                if !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) || isDirectory.boolValue {
                    report(.missingFile, "avatar file '\(avatar.value)' not found (looked for \(path))",
                           SourceLocation(file: file, mark: avatar.mark))
                }
                avatarPath = path
            }
            profile = Profile(nickname: section.nickname, signature: section.signature,
                              avatarPath: avatarPath, attrs: section.attrs ?? [:])
        }

        let dedupe = Self.checkWebhookRules(parsed, file: file) { errors.append($0) }

        if let listen = parsed.listen, listen.isEmpty {
            report(.invalidValue, "'listen' is empty, so the bot would handle nothing "
                   + "(leave it out to handle every conversation the bot is in)",
                   SourceLocation(file: file, line: 0, column: 0))
        }
        let platform = parsed.platform?.platform ?? .switchboard
        errors += Self.platformProblems(parsed, platform, file: file)
        guard errors.isEmpty else { throw BotConfigErrors(errors) }

        let standard = Limits.standard
        self.init(
            name: parsed.bot.value, file: file, version: version,
            account: Account(username: parsed.account.username.value, password: parsed.account.password?.value ?? "",
                             register: parsed.account.register ?? false, nickname: parsed.account.nickname,
                             passwordVariable: parsed.account.passwordVariable),
            profile: profile,
            listen: parsed.listen ?? [],
            join: (parsed.join ?? []).map(\.address),
            backlog: parsed.onStart?.backlog ?? .newerThan(ConfigDurationDefaults.backlogWindow),
            limits: Limits(perConversation: parsed.limits?.perConversation ?? standard.perConversation,
                           perGroup: parsed.limits?.perGroup ?? standard.perGroup,
                           total: parsed.limits?.total ?? standard.total,
                           queue: parsed.limits?.queue ?? standard.queue),
            maxRepliesPerMinute: parsed.loopGuard?.maxRepliesPerMinute ?? 20,
            initialState: (parsed.state ?? [:]).mapValues(TemplateValue.init(yaml:)),
            timezone: parsed.timezone?.identifier,
            rules: parsed.rules,
            moderation: parsed.moderation?.settings ?? ModerationSettings(),
            groupSettings: Dictionary((parsed.join ?? []).compactMap { target -> (String, GroupSettings)? in
                guard case .group(let name) = target.address, let settings = target.settings else { return nil }
                return (name, settings)
            }, uniquingKeysWith: { _, last in last }),
            webhooks: parsed.webhooks, dedupe: dedupe)
        self.platform = platform
    }

    /// What the file asks of its platform that the platform cannot do: each action, and
    /// on Matrix a group of `listen:` or `join:` that `platform.matrix.rooms` gives no
    /// room (or a `room:`/`user:` conversation, which Matrix bots do not have).
    static func platformProblems(_ parsed: BotFile, _ platform: BotPlatform, file: String) -> [BotConfigError] {
        let unsupported = platform.unsupportedActions
        var problems: [BotConfigError] = []
        for rule in parsed.rules {
            for action in rule.actions {
                guard let why = unsupported[action.kind] else { continue }
                problems.append(BotConfigError(
                    code: .invalidValue, location: action.location,
                    message: "rule '\(rule.name)': '\(action.kind)' cannot run on \(platform.name): \(why)"))
            }
        }
        if case .matrix(let account) = platform {
            for pattern in parsed.listen ?? [] {
                switch pattern {
                case .group(let name) where account.rooms[name.lowercased()] == nil:
                    problems.append(BotConfigError(
                        code: .unknownReference, location: SourceLocation(file: file, mark: parsed.listenMark),
                        message: "'listen' names group:\(name), which has no Matrix room: add "
                            + "'\(name): \"#\(name):your.server\"' (or a '!id:server') under platform.matrix.rooms"))
                case .user(let name) where MatrixUserID(name) != nil:
                    continue
                case .room(let name), .user(let name):
                    problems.append(BotConfigError(
                        code: .invalidValue, location: SourceLocation(file: file, mark: parsed.listenMark),
                        message: "'listen' names \(pattern), which a Matrix bot does not have: its rooms are "
                            + "named as groups (group:\(name), with the room under platform.matrix.rooms) or "
                            + "written as Matrix writes them ('#alias:server'), its direct chats as '@user:server'"))
                default:
                    continue
                }
            }
            for target in parsed.join ?? [] {
                let name: String
                switch target.address {
                case .group(let group): name = group
                case .room(let room): name = room
                default: continue
                }
                guard account.rooms[name.lowercased()] == nil else { continue }
                problems.append(BotConfigError(
                    code: .unknownReference, location: SourceLocation(file: file, mark: parsed.joinMark),
                    message: "'join' names \(target.address), which has no Matrix room: add "
                        + "'\(name): \"#\(name):your.server\"' (or a '!id:server') under platform.matrix.rooms"))
            }
            if let section = parsed.moderation {
                if case .group(let name)? = section.settings.log, account.rooms[name.lowercased()] == nil {
                    problems.append(BotConfigError(
                        code: .unknownReference, location: SourceLocation(file: file, mark: section.logMark),
                        message: "moderation.log names group:\(name), which has no Matrix room: make an invite-only "
                            + "room for the cases and add '\(name): \"#\(name):your.server\"' under platform.matrix.rooms "
                            + "(on Matrix the bot does not create it)"))
                }
                if !section.settings.moderators.isEmpty {
                    problems.append(BotConfigError(
                        code: .invalidValue, location: SourceLocation(file: file, mark: section.moderatorsMark),
                        message: "moderation.moderators are Switchboard accounts the bot makes admins: on Matrix give "
                            + "the moderators power level 50 or more in the rooms instead, and leave this key out"))
                }
            }
        }
        return problems
    }
}

import IMProtocol

/// Defaults that are durations.
enum ConfigDurationDefaults {
    /// How old a missed event may be and still be handled at start: 10 minutes.
    static let backlogWindow = ConfigDuration(seconds: 600)
}
