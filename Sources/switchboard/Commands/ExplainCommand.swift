import IMBots
import IMProtocol
import YAMLCoding

/// `switchboard explain`: which of a bot's rules a message fires, and why the others do not.
struct ExplainCommand: Command {
    static let name = "explain"
    static let summary = "show which rules a message would fire, and why the others do not"
    static let help = """
        usage: switchboard explain --bot NAME [--config FILE] [--from USER] [--role ROLE] [--in ADDRESS] [--at TIME]
                                   [--state DIR] TEXT...
               switchboard explain --file FILE [--from USER] [--role ROLE] [--in ADDRESS] [--at TIME] [--state DIR] TEXT...

        Treats TEXT (the remaining words, joined by spaces; after '--' when they start
        with '-') as a message to the bot and prints, for each rule in order, one line:
        'fired' (with what the match bound), 'not matched' with the first condition that
        does not hold, 'suppressed' when an earlier rule's stop ended evaluation, or
        'ignored' when the bot does not handle the message at all (outside its listen
        list, its own message). Then, as a dry run, what the fired rules' actions would
        do, templates rendered: nothing is sent, and http actions are not called (they
        get an empty 200 answer). Needs no server.

        options:
          --bot NAME         the bot, found by name among the bot files of the bots folder
          --file FILE        the bot file to use instead (--bot is then optional)
        \(BotSelection.help)
          --from USER        the sender (default: someone)
          --role ROLE        the sender's role in the group: member, admin or owner
                             (default: not known, as for a message outside a group)
          --in ADDRESS       where the message is written: group:NAME, room:NAME or user:NAME
                             (default: the direct conversation with the sender)
          --at TIME          when, in RFC 3339 (2025-01-06T09:30:00+01:00; default: now),
                             for hours/days matchers and {{now}}
          --state DIR        the runner's state folder (runner.state): start from the bot's
                             state variables, strikes and cases as it kept them, and show the
                             sender's points on each strike counter (rate and repeated
                             counters live in the runner's memory: they count from 0)

        exit codes: 0 explained, 2 unknown bot, a bot file with problems, or usage
        """
    static let options: Set<String> = ["bot", "file", "config", "from", "role", "in", "at", "state"]
    static let flags: Set<String> = []

    var bot: String?
    var selection: BotSelection
    var sender: String
    var role: MemberRole?
    var address: ConversationAddress?
    var time: Timestamp?
    var stateFolder: String?
    var text: String

    init(arguments: Arguments) throws {
        bot = arguments[option: "bot"]
        let file = arguments[option: "file"]
        guard bot != nil || file != nil else { throw UsageError(message: "say which bot with --bot NAME (or --file FILE)") }
        selection = BotSelection(configPath: arguments[option: "config"], paths: file.map { [$0] } ?? [])
        sender = arguments[option: "from"] ?? "someone"
        do {
            _ = try Validate.username(sender)
        } catch {
            throw UsageError(message: "--from '\(sender)' is not a username: \((error as? APIError)?.message ?? "\(error)")")
        }
        if let written = arguments[option: "role"] {
            guard let role = MemberRole(rawValue: written.lowercased()) else {
                throw UsageError(message: "--role '\(written)' is not a role: use member, admin or owner")
            }
            self.role = role
        }
        if let written = arguments[option: "in"] {
            guard let address = ConversationAddress(written.lowercased()) else {
                throw UsageError(message: "--in '\(written)' is not an address: use group:NAME, room:NAME or user:NAME")
            }
            self.address = address
        }
        if let written = arguments[option: "at"] {
            guard let time = Timestamp(rfc3339: written) else {
                throw UsageError(message: "--at '\(written)' is not an RFC 3339 time such as 2025-01-06T09:30:00Z")
            }
            self.time = time
        }
        stateFolder = arguments[option: "state"]
        text = arguments.positionals.joined(separator: " ")
        guard !text.isEmpty else { throw UsageError(message: "give the message text after the options") }
    }

    func run() async throws -> Int32 {
        let definition = try findBot()
        let now = time ?? .now()
        var event = BotEvent.message(from: sender, text: text, in: address, position: 1, at: now)
        event.senderRole = role
        let saved = try stateFolder.flatMap { folder throws -> SavedBotState? in
            do {
                return try SavedBotState.read(folder: folder + "/" + definition.name)
            } catch {
                throw ConfigurationError("--state: \(error)")
            }
        }
        let context = BotContext(definition: definition, state: saved?.variables, now: now)
        let engine = RuleEngine(bot: definition)

        let place = event.conversation.map { " in \($0.address)" } ?? ""
        printOutput("bot '\(definition.name)' (\(definition.file)), message from \(sender)\(place) at \(now.rfc3339): "
                    + Self.quote(text))
        printOutput("")
        for explanation in engine.explain(event, context: context) {
            printOutput(explanation.description)
        }
        for line in saved?.strikes(of: sender, in: definition, at: now) ?? [] {
            printOutput(line)
        }
        printOutput("")
        let decision = engine.decide(event, context: context)
        guard !decision.isEmpty else {
            printOutput("no rule fires: the bot would do nothing")
            return ExitCode.ok
        }
        let effects = RecordingEffects(moderation: saved?.moderation ?? ModerationBook())
        let report = await ActionRunner.run(decision, event: event, context: context, effects: effects)
        printOutput("dry run, nothing is sent: what the fired rules would do "
                    + "(http actions are not called; they get an empty 200 answer)")
        for outcome in report.outcomes {
            printOutput("  " + Self.describe(outcome))
        }
        return ExitCode.ok
    }

    /// The bot asked for, or a configuration error that says why there is none (listing
    /// the bots there are).
    private func findBot() throws -> BotDefinition {
        let loaded = selection.load(environment: CommandContext.current.environment)
        if let file = selection.paths.first {
            guard let result = loaded.results.first(where: { $0.file == file }) else {
                throw ConfigurationError("--file \(file) is not a bot file")
            }
            guard let found = result.bot else {
                for problem in result.problems { printDiagnostic(problem) }
                throw ConfigurationError("\(file) has problems; see 'switchboard check'")
            }
            guard let name = bot, name != found.name else { return found }
            throw ConfigurationError("\(file) defines bot '\(found.name)', not '\(name)'")
        }
        guard let name = bot else { throw UsageError(message: "say which bot with --bot NAME (or --file FILE)") }
        if let found = loaded.bots.first(where: { $0.name == name }) { return found }
        for problem in loaded.problems { printDiagnostic(problem) }
        let names = loaded.bots.map(\.name)
        guard !names.isEmpty || !loaded.problems.isEmpty else {
            throw ConfigurationError("no bot '\(name)': no bot files were found")
        }
        let hint = Suggestion.hint(for: name, among: names)
        let known = names.isEmpty ? "none loaded" : names.joined(separator: ", ")
        throw ConfigurationError("no bot '\(name)'\(hint); bots found: \(known)")
    }

    /// `greet[0] reply to user:alice: Hi alice!`, one line per action (more for a text
    /// of several lines).
    static func describe(_ outcome: ActionOutcome) -> String {
        let head = "\(outcome.rule)[\(outcome.actionIndex)] \(outcome.kind)"
        let note = outcome.mode == .enforce ? "" : " (\(outcome.mode) mode: not performed even when live)"
        switch outcome.status {
        case .performed(let effect), .dryRun(let effect):
            switch effect {
            case .message(let message, _):
                let text = message.text.replacingOccurrences(of: "\n", with: "\n      ")
                return "\(head) to \(message.to)\(note): \(text)"
            case .stop:
                return "\(head): no later rule runs" + note
            default:
                return "\(head): \(effect)" + note
            }
        case .failed(let error):
            return "\(head): would fail: \(error.message)"
        case .skipped:
            return "\(head): skipped after the failure above"
        }
    }

    private static func quote(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n") + "\""
    }
}
