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
            if let example = rule.examples.first {
                fail(.notAvailable, "examples are not available for webhook rules in this version",
                     YAMLMark(line: example.location.line, column: example.location.column))
            }
            for action in rule.actions {
                for problem in problems(of: action, format: format) { fail(problem.code, problem.message, problem.mark) }
            }
            if trigger.absentFor != nil {
                if let dedupe = rule.dedupe {
                    fail(.invalidValue, "a rule with absent_for has no dedupe: it fires on silence, not on a payload",
                         dedupe.mark)
                }
                continue
            }
            guard let spec = rule.dedupe ?? (format == .json ? nil : DedupeSpec(defaultAt: start)) else { continue }
            do {
                keys[rule.name] = try spec.resolved(for: format, file: file)
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
        case .reply, .forward, .updateProfile, .http, .moderation:
            return [Problem(code: .invalidValue, message: "'\(action.kind)' cannot run for a webhook (it has no "
                            + "conversation, message or sender); use send with to:, or incident", mark: at)]
        }
    }

    private static func mark(of action: Action) -> YAMLMark {
        YAMLMark(line: action.location.line, column: action.location.column)
    }
}
