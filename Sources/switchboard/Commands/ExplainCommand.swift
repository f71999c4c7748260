import IMBots
import IMProtocol
import YAMLCoding

/// `switchboard explain`: which of a bot's rules an event fires, and why the others do not.
struct ExplainCommand: Command {
    static let name = "explain"
    static let summary = "show which rules a message (or a member event) would fire, and why the others do not"
    static let help = """
        usage: switchboard explain --bot NAME [--config FILE] [--from USER] [--role ROLE] [--in ADDRESS] [--at TIME]
                                   [--state DIR] TEXT...
               switchboard explain --bot NAME --event KIND --member USER [--via HOW] [--from USER] [--in ADDRESS] ...
               switchboard explain [--bot NAME] --webhook PATH [--payload FILE] [--at TIME]
               switchboard explain --file FILE ...

        Treats TEXT (the remaining words, joined by spaces; after '--' when they start
        with '-') as a message to the bot, or, with --event, makes up an event of that
        kind (member_joined, member_left, ...) about --member, and prints, for each rule
        in order, one line: 'fired' (with what the match bound), 'not matched' with the
        first condition that does not hold, 'suppressed' when an earlier rule's stop ended
        evaluation, or 'ignored' when the bot does not handle the event at all (outside
        its listen list, its own message). Then, as a dry run, what the fired rules'
        actions would do, templates rendered: nothing is sent, and http actions are not
        called (they get an empty 200 answer). Needs no server.

        With --webhook, the event is a webhook body arriving on PATH (read from
        --payload FILE, or standard input when it is '-' or left out): for each rule, which
        of its match: entries held or failed and the values they saw; the dedupe key each
        firing rule files it under; then what the bridge would post, edit or send for it,
        as the first notification of its alert group. The bot is the one serving PATH
        unless --bot or --file says.

        options:
          --bot NAME         the bot, found by name among the bot files of the bots folder
          --file FILE        the bot file to use instead (--bot is then optional)
        \(BotSelection.help)
          --event KIND       the kind of event (default: message); a member event needs --member
          --member USER      the member a member event is about
          --via HOW          how the member joined (member_joined): open, invite or approval
          --from USER        the sender (default: someone; for a member event: the member, so
                             give --from only for someone who acted on the member, e.g. a kick)
          --role ROLE        the sender's role in the group: member, admin or owner
                             (default: not known, as for a message outside a group)
          --in ADDRESS       where the event happens: group:NAME, room:NAME or user:NAME
                             (default: the direct conversation with the sender)
          --at TIME          when, in RFC 3339 (2025-01-06T09:30:00+01:00; default: now),
                             for hours/days matchers and {{now}}
          --webhook PATH     explain a webhook body arriving on PATH (a webhooks: entry's path)
          --payload FILE     the body, as the sender posts it (default: standard input)
          --state DIR        the runner's state folder (runner.state): start from the bot's
                             state variables, strikes and cases as it kept them, and show the
                             sender's points on each strike counter (rate and repeated
                             counters live in the runner's memory: they count from 0)

        exit codes: 0 explained, 2 unknown bot, a bot file with problems, or usage
        """
    static let options: Set<String> = ["bot", "file", "config", "from", "role", "in", "at", "event", "member", "via", "state",
                                       "webhook", "payload"]
    static let flags: Set<String> = []

    var bot: String?
    var selection: BotSelection
    var type: EventType
    var sender: String?
    var member: String?
    var via: JoinVia?
    var role: MemberRole?
    var address: ConversationAddress?
    var time: Timestamp?
    var stateFolder: String?
    var text: String
    /// `--webhook PATH` and where its body comes from (`-`: standard input).
    var webhook: (path: String, payload: String)?

    init(arguments: Arguments) throws {
        bot = arguments[option: "bot"]
        let file = arguments[option: "file"]
        selection = BotSelection(configPath: arguments[option: "config"], paths: file.map { [$0] } ?? [])
        if let path = arguments[option: "webhook"] {
            guard path.hasPrefix("/") else { throw UsageError(message: "--webhook '\(path)' is a path such as /hooks/alertmanager") }
            for option in ["event", "member", "via", "from", "role", "in", "state"] where arguments[option: option] != nil {
                throw UsageError(message: "--\(option) describes a feed event; a webhook has a payload only (--payload FILE)")
            }
            guard arguments.positionals.isEmpty else {
                throw UsageError(message: "a webhook has no text: give its body with --payload FILE (or on standard input)")
            }
            webhook = (path, arguments[option: "payload"] ?? "-")
        } else if arguments[option: "payload"] != nil {
            throw UsageError(message: "--payload is the body of a webhook: give --webhook PATH too")
        }
        guard bot != nil || file != nil || webhook != nil else {
            throw UsageError(message: "say which bot with --bot NAME (or --file FILE)")
        }
        type = try Self.eventType(arguments[option: "event"])
        sender = try arguments[option: "from"].map { try Self.username($0, "--from") }
        member = try arguments[option: "member"].map { try Self.username($0, "--member") }
        if let written = arguments[option: "via"] {
            guard let via = JoinVia(rawValue: written.lowercased()) else {
                throw UsageError(message: "--via '\(written)' is not a way to join: use open, invite or approval")
            }
            self.via = via
        }
        if let written = arguments[option: "role"] {
            guard let role = MemberRole(rawValue: written.lowercased()) else {
                throw UsageError(message: "--role '\(written)' is not a role: use member, admin or owner")
            }
            self.role = role
        }
        if let written = arguments[option: "in"] {
            guard let address = ConversationAddress(written: written) else {
                throw UsageError(message: "--in '\(written)' is not an address: use group:NAME, room:NAME or "
                                 + "user:NAME (on Matrix '#alias:server', '!id:server' or '@user:server')")
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
        if webhook != nil {
            // Checked above.
        } else if type == .message || type == .messageEdited {
            guard !text.isEmpty else { throw UsageError(message: "give the message text after the options") }
            guard member == nil, via == nil else {
                throw UsageError(message: "--member and --via describe a member event: give --event too")
            }
        } else {
            guard text.isEmpty else { throw UsageError(message: "a \(type.rawValue) event has no text: leave it out") }
            guard member != nil || sender != nil else {
                throw UsageError(message: "say who the \(type.rawValue) event is about with --member USER")
            }
        }
    }

    func run() async throws -> Int32 {
        if let webhook { return try await explainWebhook(path: webhook.path, payload: webhook.payload) }
        let definition = try await findBot()
        let now = time ?? .now()
        let senderPerson = (sender ?? (member == nil ? "someone" : nil)).map { BotEvent.Person($0, role: role) }
        // The member is the sender unless --from names who acted: the role is theirs then.
        let memberPerson = member.map { BotEvent.Person($0, role: sender == nil ? role : nil) }
        let event = BotEvent.made(type, from: senderPerson, member: memberPerson, via: via, text: text,
                                  in: address, position: 1, at: now)
        let saved = try stateFolder.flatMap { folder throws -> SavedBotState? in
            do {
                return try SavedBotState.read(folder: folder + "/" + definition.name)
            } catch {
                throw ConfigurationError("--state: \(error)")
            }
        }
        let context = BotContext(definition: definition, state: saved?.variables, now: now)
        let engine = RuleEngine(bot: definition)

        printOutput("bot '\(definition.name)' (\(definition.file)), \(Self.describe(event, at: now))")
        printOutput("")
        for explanation in engine.explain(event, context: context) {
            printOutput(explanation.description)
        }
        if let saved, let who = event.actor {
            for line in saved.strikes(of: who, in: definition, at: now) { printOutput(line) }
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
        if let stop = report.stop {
            printOutput("  \(stop.rule): its stop ends evaluation; no later rule runs")
        }
        return ExitCode.ok
    }

    /// `message from alice in group:team at TIME: "hi"`,
    /// `member_joined of dave in group:team at TIME (via invite)`.
    private static func describe(_ event: BotEvent, at time: Timestamp) -> String {
        let place = (event.conversation.map { " in \($0.address)" } ?? "") + " at \(time.rfc3339)"
        guard event.type != .message else {
            return "message from \(event.actor ?? "someone")\(place): " + quote(event.text ?? "")
        }
        let member = event.member?.username ?? "-"
        let by = event.event.by.map { " by \($0)" } ?? ""
        let via = event.joinedVia.map { " (via \($0.rawValue))" } ?? ""
        return "\(event.type.rawValue) of \(member)\(by)\(place)\(via)"
    }

    private static func eventType(_ written: String?) throws -> EventType {
        guard let written else { return .message }
        let known = EventType.known.map(\.rawValue).filter { $0 != "kicked_out" }
        guard known.contains(written) else {
            throw UsageError(message: "--event '\(written)' is not an event kind\(Suggestion.hint(for: written, among: known)): "
                             + "use " + known.joined(separator: ", "))
        }
        return EventType(rawValue: written)
    }

    private static func username(_ name: String, _ option: String) throws -> String {
        // A Matrix bot's people are Matrix user ids (`@alice:example.org`).
        if let address = ConversationAddress(written: name), case .user(let id) = address, address.isMatrixForm {
            return id
        }
        do {
            return try Validate.username(name)
        } catch {
            throw UsageError(message: "\(option) '\(name)' is not a username: \((error as? APIError)?.message ?? "\(error)")")
        }
    }

    /// The bot asked for, or a configuration error that says why there is none (listing
    /// the bots there are); with neither --bot nor --file, the one serving `servingPath`.
    func findBot(servingPath: String? = nil) async throws -> BotDefinition {
        if bot == nil, selection.paths.isEmpty, let path = servingPath {
            let loaded = await selection.load(environment: CommandContext.current.environment)
            if let found = loaded.bots.first(where: { $0.webhook(path: path) != nil }) { return found }
            for problem in loaded.problems { printDiagnostic(problem) }
            let served = loaded.bots.flatMap { bot in bot.webhooks.map { "\($0.path) (\(bot.name))" } }
            throw ConfigurationError("no bot serves \(path)" + (served.isEmpty ? ": no bot has webhooks"
                                     : "; served: " + served.joined(separator: ", ")))
        }
        let loaded = await selection.load(environment: CommandContext.current.environment)
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

    /// `greet action 1: reply to user:alice: Hi alice!`, one line per action (more for a
    /// text of several lines); actions are counted from 1.
    static func describe(_ outcome: ActionOutcome) -> String {
        let head = "\(outcome.rule) action \(outcome.actionIndex + 1): \(outcome.kind)"
        let note = outcome.mode == .enforce ? "" : " (\(outcome.mode) mode: not performed even when live)"
        switch outcome.status {
        case .performed(let effect), .dryRun(let effect):
            if case .message(let message, _) = effect {
                let text = message.text.replacingOccurrences(of: "\n", with: "\n      ")
                return "\(head) to \(message.to)\(note): \(text)"
            }
            return "\(head): \(effect)" + note
        case .failed(let error):
            return "\(head): would fail: \(error.message)"
        case .skipped(let failed):
            return "\(head): not run, because action \(failed + 1) failed"
        }
    }

    private static func quote(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n") + "\""
    }
}
