import YAMLCoding

extension BotDefinition {
    /// Checks the webhook rules against the file's `webhooks:` and returns their dedupe
    /// keys: each names a path the file serves and does only what a webhook can (`send`
    /// with `to:`, `incident`, `set`, `increment`, `stop`). Their templates are checked
    /// with every rule's (``TemplateCheck``), against the route's payload.
    static func checkWebhookRules(_ parsed: BotFile, file: String,
                                  report: (BotConfigError) -> Void) -> [String: DedupeKey] {
        func fail(_ code: BotConfigError.Code, _ message: String, _ mark: YAMLMark) {
            report(BotConfigError(code: code, location: SourceLocation(file: file, mark: mark), message: message))
        }
        var keys: [String: DedupeKey] = [:]
        let paths = parsed.webhooks.map(\.path)
        for rule in parsed.rules {
            let start = YAMLMark(line: rule.location.line, column: rule.location.column)
            guard let trigger = rule.webhook else {
                if let dedupe = rule.dedupe { fail(.invalidValue, "dedupe applies to webhook rules only", dedupe.mark) }
                for example in rule.examples where example.webhook != nil {
                    fail(.invalidValue, "a payload example is for a webhook rule (when: { webhook: PATH }); this rule "
                         + "takes feed events: give from and text (or event)", mark(of: example))
                }
                for action in rule.actions where action.kind == .incident {
                    fail(.invalidValue, "'incident' runs in webhook rules only (when: { webhook: PATH })", mark(of: action))
                }
                continue
            }
            guard let endpoint = parsed.webhooks.first(where: { $0.path == trigger.path }) else {
                let known = paths.isEmpty ? "the file has no webhooks: entries" : "the paths are " + paths.joined(separator: ", ")
                fail(.unknownReference, "rule '\(rule.name)' takes webhooks on \(trigger.path), which no webhooks entry "
                     + "serves\(Suggestion.hint(for: trigger.path, among: paths)) (\(known))", start)
                continue
            }
            let format = endpoint.route.format
            for clause in trigger.match?.clauses ?? [] {
                if let problem = clause.path.problem(for: format) { fail(.invalidValue, problem, clause.mark ?? start) }
            }
            for example in rule.examples {
                for problem in problems(of: example, route: endpoint.route) { fail(problem.code, problem.message, problem.mark) }
            }
            for action in rule.actions {
                for problem in problems(of: action, format: format) { fail(problem.code, problem.message, problem.mark) }
            }
            if trigger.quiet != nil {
                if let dedupe = rule.dedupe {
                    fail(.invalidValue, "a webhook rule with quiet has no dedupe: it fires on silence, not on a payload",
                         dedupe.mark)
                }
                continue
            }
            guard let spec = rule.dedupe ?? (format == .json ? nil : DedupeSpec(defaultAt: start)) else { continue }
            do {
                let key = try spec.resolved(for: format, file: file)
                if spec.key != nil {
                    let check = TemplateCheck(file: file, state: nil)
                    check.problems(inDedupeKey: key, of: rule, format: format, at: spec.keyMark ?? spec.mark).forEach(report)
                }
                keys[rule.name] = key
            } catch {
                for problem in error.errors { fail(.missingKey, problem.message, problem.mark ?? start) }
            }
        }
        return keys
    }

    private struct Problem {
        var code: BotConfigError.Code
        var message: String
        var mark: YAMLMark
    }

    /// What is wrong with one action of a webhook rule on a route of `format`.
    private static func problems(of action: Action, format: WebhookFormat) -> [Problem] {
        let at = mark(of: action)
        switch action.spec {
        case .send(let spec) where spec.to == nil:
            return [Problem(code: .missingKey, message: "in a webhook rule, send needs to: (a webhook has no "
                            + "conversation to answer in)", mark: at)]
        case .incident where !format.carriesAlerts:
            return [Problem(code: .invalidValue, message: "'incident' needs an alert route (format: alertmanager, "
                            + "grafana or pagerduty); a \(format.rawValue) body has no alert group", mark: at)]
        case .send, .incident, .set, .increment, .stop:
            return []
        default:
            // Every other action answers a conversation, a message or a sender.
            return [Problem(code: .invalidValue, message: "'\(action.kind)' cannot run for a webhook (it has no "
                            + "conversation, message or sender); use send with to:, or incident", mark: at)]
        }
    }

    /// What is wrong with an example of a webhook rule on `route`: it must send payloads
    /// that read as the route's format, and expect what a webhook can do.
    private static func problems(of example: RuleExample, route: WebhookRoute) -> [Problem] {
        guard let steps = example.webhook else {
            return [Problem(code: .invalidValue, message: "a webhook rule's example sends a notification: give payload "
                            + "(the body, inline) or payload_file (a file next to the bot file) with expect, or "
                            + "notifications", mark: mark(of: example))]
        }
        var problems: [Problem] = []
        for step in steps {
            if let body = step.body {
                do {
                    _ = try route.format.decode(body, limits: route.limits)
                } catch {
                    problems.append(Problem(code: .invalidValue, message: "the payload (\(step.source)) does not read "
                                            + "as a \(route.format.rawValue) notification: \(error.message)",
                                            mark: step.payloadMark))
                }
            }
            let expected = step.expectation
            let feedOnly = expected.messages.filter { $0.kind != .send }.map { ("\($0.kind)", true) }
                + [("update_profile", expected.profileUpdates != nil), ("actions", expected.actions != nil),
                            ("a moderation count or case", expected.moderation?.isEmpty == false)]
            for (name, given) in feedOnly where given {
                problems.append(Problem(code: .invalidValue, message: "a webhook example expects incident, send, "
                                        + "state, rule or nothing; not \(name) (a webhook has no conversation to act in)",
                                        mark: YAMLMark(line: step.location.line, column: step.location.column)))
            }
        }
        return problems
    }

    private static func mark(of example: RuleExample) -> YAMLMark {
        YAMLMark(line: example.location.line, column: example.location.column)
    }

    private static func mark(of action: Action) -> YAMLMark {
        YAMLMark(line: action.location.line, column: action.location.column)
    }
}
