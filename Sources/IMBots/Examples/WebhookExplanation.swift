import Foundation
import IMProtocol
import Templates

/// What a bot's webhook rules would do with one body arriving on a path, for
/// `switchboard explain --webhook PATH --payload FILE`: each rule's verdict with its
/// `match:` entries and the values they saw, the dedupe key each firing rule files it
/// under, and, as a dry run of the bridge's own rules (``WebhookExampleRunner``), the
/// messages it would send.
public struct WebhookExplanation: Sendable {
    /// The route's format.
    public let format: WebhookFormat
    /// Each rule's verdict, in rule order.
    public let rules: [RuleExplanation]
    /// `critical: {{payload.groupKey}}/… → '{}:{alertname="DiskFull"}/firing/…'`, per firing rule.
    public let dedupe: [String]
    /// What would be sent or changed, in order; empty when nothing would.
    public let effects: [String]

    /// Why a body cannot be explained.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// Explains `body` arriving on `path` at `now`, for `bot`, as the first delivery the
    /// bridge gets (no incident open yet, no key seen).
    public static func explain(_ body: Data, path: String, bot: BotDefinition,
                               at now: Timestamp) async throws(Failure) -> WebhookExplanation {
        guard let route = bot.webhook(path: path)?.route else {
            let paths = bot.webhooks.map(\.path)
            throw Failure(description: "bot '\(bot.name)' has no webhooks entry for \(path)"
                          + (paths.isEmpty ? " (it serves no webhooks)" : "; it serves " + paths.joined(separator: ", ")))
        }
        let payload: WebhookPayload
        do {
            payload = try route.format.decode(body, limits: route.limits)
        } catch {
            throw Failure(description: "the payload does not read as a \(route.format.rawValue) notification: "
                          + error.message)
        }
        let engine = RuleEngine(bot: bot)
        let event = BotEvent.webhook(path: path, payload: payload, number: 1, scope: "w1", at: now)
        let verdicts = engine.explain(event, context: BotContext(definition: bot, now: now))
        let root = TemplateValue.object(["payload": payload.templateValue])
        let dedupe = verdicts.filter { $0.verdict == .fired }.compactMap { verdict -> String? in
            guard let key = bot.dedupe[verdict.rule] else { return nil }
            let rendered = key.template.render(root, escaping: .none)
            return "\(verdict.rule): key \(key.template.source) = '\(rendered.prefix(300))', for "
                + SilenceDraft.format(key.lifetime) + " (a second copy within that time is a repeat)"
        }
        var world = WebhookExampleRunner.World(rules: AlertRules(definition: bot, engine: engine),
                                               variables: bot.initialState)
        await world.start(at: now.milliseconds)
        let step = WebhookExampleStep(location: SourceLocation(file: bot.file, line: 0, column: 0), body: body,
                                      source: "the payload", payloadMark: .unknown, after: ConfigDuration(seconds: 0),
                                      expectation: Expectation())
        let done: WebhookExampleRunner.Step
        do {
            done = try await world.take(step, route: route, path: path, now: now.milliseconds)
        } catch {
            throw Failure(description: error.description)
        }
        var effects = done.failures.map { "would fail: \($0)" }
        for message in done.messages {
            let text = message.text.replacingOccurrences(of: "\n", with: "\n      ")
            switch message.incident?.part {
            case .post?: effects.append("\(message.rule): post the living message in \(message.to):\n      \(text)")
            case .edit?: effects.append("\(message.rule): edit the living message in \(message.to):\n      \(text)")
            case .reply?: effects.append("\(message.rule): reply to the living message in \(message.to): \(text)")
            case nil: effects.append("\(message.rule): send to \(message.to): \(text)")
            }
        }
        if done.stateChanged {
            let keys = done.state.keys.sorted().filter { done.state[$0] != bot.initialState[$0] }
            for key in keys { effects.append("state \(key) = \(done.state[key]?.interpolatedText ?? "")") }
        }
        return WebhookExplanation(format: route.format, rules: verdicts, dedupe: dedupe, effects: effects)
    }
}
