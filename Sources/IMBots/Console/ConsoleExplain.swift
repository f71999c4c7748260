import Foundation
import IMProtocol

/// The console's explain box: which of a running bot's rules a message (text, sender,
/// conversation) or a webhook body (path and body) would fire, and why the others do
/// not, decided by the same pure engine as `switchboard explain`. Nothing is sent.
struct ConsoleExplain {
    let runner: BotRunner

    struct Request: Decodable {
        let bot: String
        /// A message's text.
        var text: String?
        var from: String?
        /// `group:NAME`, `room:NAME` or `user:NAME`.
        var `in`: String?
        /// A webhook delivery instead: the listener path and the body.
        var path: String?
        var body: String?
    }

    struct Rule: Encodable {
        let rule: String
        let verdict: String
        let reason: String
    }

    struct Answer: Encodable {
        let bot: String
        let rules: [Rule]
        let fires: [String]
    }

    func explain(_ request: Request) throws -> Answer {
        guard let definition = runner.slotsByName[request.bot]?.definition else {
            throw ConsoleError(APIError(.notFound, "no running bot '\(request.bot)'"))
        }
        let now = Timestamp(milliseconds: runner.configuration.time.wallMilliseconds)
        let context = BotContext(definition: definition, now: now)
        let engine = RuleEngine(bot: definition)
        if let path = request.path {
            guard let endpoint = definition.webhooks.first(where: { $0.path == path }) else {
                let paths = definition.webhooks.map(\.path).joined(separator: ", ")
                throw ConsoleError(APIError(.invalidRequest, "bot '\(definition.name)' has no webhook \(path)"
                                            + (paths.isEmpty ? "" : " (it has \(paths))"), field: "path"))
            }
            let payload: WebhookPayload
            do {
                payload = try endpoint.route.format.decode(Data((request.body ?? "").utf8), limits: endpoint.route.limits)
            } catch {
                throw ConsoleError(APIError(.invalidRequest, "the body does not read as \(endpoint.route.format): \(error)",
                                            field: "body"))
            }
            let event = BotEvent.webhook(path: path, payload: payload, number: 1, scope: "explain", at: now)
            let decision = engine.decide(event, context: context)
            let fired = Set(decision.firings.map(\.rule.name))
            let rules = definition.rules.map { rule in
                Rule(rule: rule.name, verdict: fired.contains(rule.name) ? "fired" : "not matched",
                     reason: fired.contains(rule.name) ? "its webhook conditions hold" : "not a rule for this delivery")
            }
            return Answer(bot: definition.name, rules: rules, fires: decision.firings.map(\.rule.name))
        }
        guard let text = request.text, !text.isEmpty else {
            throw ConsoleError(APIError(.invalidRequest, "give a message's text, or a webhook's path and body", field: "text"))
        }
        var address: ConversationAddress?
        if let written = request.in, !written.isEmpty {
            guard let parsed = ConversationAddress(written: written) else {
                throw ConsoleError(APIError(.invalidRequest, "'\(written)' is not an address: group:NAME, room:NAME or user:NAME "
                                            + "(on Matrix '#alias:server', '!id:server' or '@user:server')",
                                            field: "in"))
            }
            address = parsed
        }
        let sender = BotEvent.Person(request.from.flatMap { $0.isEmpty ? nil : $0 } ?? "someone")
        let event = BotEvent.made(.message, from: sender, text: text, in: address, position: 1, at: now)
        let explanations = engine.explain(event, context: context)
        let decision = engine.decide(event, context: context)
        return Answer(bot: definition.name,
                      rules: explanations.map { Rule(rule: $0.rule, verdict: $0.verdict.rawValue, reason: $0.reason) },
                      fires: decision.firings.map(\.rule.name))
    }
}
