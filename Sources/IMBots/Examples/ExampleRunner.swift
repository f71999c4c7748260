import Foundation
import IMClient
import IMProtocol
import Templates
import YAMLCoding

/// Runs a bot's `examples:` offline: each example becomes an event, the whole rule set
/// decides (so an earlier rule's `stop` is part of the test), the actions run against
/// `RecordingEffects` with the example's scripted http responses, and what they did is
/// compared with what the example expects.
///
/// Dry and shadow rules are checked by what they would do: an example describes the
/// rule's behaviour, whichever mode it is rolled out in.
public enum ExampleRunner {
    /// Runs every example of every rule, in file order.
    public static func run(bot: BotDefinition) async -> [ExampleResult] {
        let engine = RuleEngine(bot: bot)
        var results: [ExampleResult] = []
        var position: Int64 = 0
        for rule in bot.rules {
            for (index, example) in rule.examples.enumerated() {
                position += 1
                let failure = await run(example, of: rule, position: position, engine: engine)
                results.append(ExampleResult(bot: bot.name, rule: rule.name, number: index + 1,
                                             location: example.location, failure: failure))
            }
        }
        return results
    }

    /// Runs one example; the reasons it fails, or nil when it passes.
    ///
    /// An example with `times: N` happens N times, `every` apart, each time decided with
    /// what the ones before left (state, `rate` counters, strikes and cases); what it
    /// expects is about all of them together. With `edit:`, each message is then edited
    /// to that text: a second event about the same message, as the feed has it.
    static func run(_ example: RuleExample, of rule: Rule? = nil, position: Int64, engine: RuleEngine) async -> String? {
        if let steps = example.webhook, let path = rule?.webhook?.path {
            return await WebhookExampleRunner(engine: engine, path: path).run(example, steps)
        }
        let bot = engine.bot
        let start = example.now ?? RuleExample.defaultNow
        let initial = bot.initialState.merging(example.state) { _, given in given }
        var run = Run(example: example, engine: engine, state: initial)
        var last: BotEvent?
        for repetition in 0..<example.times {
            let now = Timestamp(milliseconds: start.milliseconds + Int64(Double(repetition) * example.every.seconds * 1000))
            // Repetitions are events of their own: distinct positions, so distinct action keys.
            let at = example.times == 1 && example.edit == nil ? position : position * 1000 + Int64(repetition) * 2
            let posted = BotEvent.made(example.event, from: example.from?.person, member: example.member?.person,
                                       via: example.member?.via ?? example.from?.via,
                                       text: example.text(at: repetition), in: example.conversation, position: at,
                                       at: now)
            let edit = example.edit.map { posted.edited(to: $0, position: at + 1) }
            for event in [posted] + (edit.map { [$0] } ?? []) {
                await run.handle(event, at: now)
                last = event
            }
        }
        guard let event = last else { return nil }
        run.report.state = run.state
        let observed = ObservedEffects(decision: run.combined, report: run.report, initialState: initial)
        let problems = observed.problems(against: example.expectation, event: event)
        return problems.isEmpty ? nil : problems.joined(separator: "; ")
    }

    /// One example's events so far: what each left for the next.
    private struct Run {
        let example: RuleExample
        let engine: RuleEngine
        var state: [String: TemplateValue]
        let effects = RecordingEffects(responses: [:])
        let windows = EventWindows()
        var combined: Decision
        var report: ActionReport

        init(example: RuleExample, engine: RuleEngine, state: [String: TemplateValue]) {
            self.example = example
            self.engine = engine
            self.state = state
            combined = Decision(bot: engine.bot.name)
            report = ActionReport(state: state)
        }

        /// Decides `event` with what the events before left, and runs what fires.
        mutating func handle(_ event: BotEvent, at now: Timestamp) async {
            let bot = engine.bot
            var context = BotContext(definition: bot, state: state, now: now)
            context.windows = windows
            let decision = engine.decide(event, context: context)
            windows.record(decision.windowHits, at: now.milliseconds)
            var responses: [String: TransportResponse] = [:]
            // Dry and shadow rules are run as if enforced: the effects only record, and the
            // example is about what the rules do once live.
            for firing in decision.firings {
                for (index, action) in firing.rule.actions.enumerated() {
                    guard case .http(let spec) = action.spec, let name = spec.name,
                          let scripted = example.http[name] else { continue }
                    let key = IdempotencyKey.make(bot: bot.name, position: event.position, rule: firing.rule.name,
                                                  actionIndex: index)
                    responses[key] = ExampleRunner.response(scripted)
                }
            }
            effects.script(responses)
            let run = await ActionRunner.run(decision, event: event, context: context, effects: effects,
                                             performingAll: true)
            state = run.state
            report.outcomes += run.outcomes
            combined.firings += decision.firings
        }
    }

    /// The scripted response: a mapping or list body as JSON, a string as text.
    static func response(_ scripted: ScriptedResponse) -> TransportResponse {
        var headers = scripted.headers.map { (name: $0.key, value: $0.value) }.sorted { $0.name < $1.name }
        let hasType = headers.contains { $0.name.lowercased() == "content-type" }
        let body: Data
        switch scripted.body {
        case nil, .null?:
            body = Data()
        case .string(let text)?:
            body = Data(text.utf8)
            if !hasType { headers.append((name: "Content-Type", value: "text/plain; charset=utf-8")) }
        case let value?:
            body = Data(rendered(value).json.utf8)
            if !hasType { headers.append((name: "Content-Type", value: "application/json")) }
        }
        return TransportResponse(status: scripted.status, headers: headers, body: body)
    }

    private static func rendered(_ value: YAMLValue) -> RenderedValue {
        switch value {
        case .null: .null
        case .bool(let flag): .bool(flag)
        case .int(let number): .int(number)
        case .double(let number): .double(number)
        case .string(let text): .string(text)
        case .array(let items): .array(items.map(rendered))
        case .object(let members): .object(members.map { ($0.key, rendered($0.value)) })
        }
    }
}
