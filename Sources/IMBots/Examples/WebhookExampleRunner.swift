import Foundation
import IMProtocol
import Templates

/// Runs a webhook rule's example offline: its notifications, in order, through the
/// bridge's own rules (``AlertRules``) against an alert state of the example's, as the
/// runner's inbox and desk would take them (dedupe, dead-man's switches, held resolves,
/// one incident per alert group), with each new living message "posted" before the next
/// notification, so that later ones edit it. After each notification what it did is
/// compared with what that notification expects.
struct WebhookExampleRunner {
    let engine: RuleEngine
    /// The path the example's rule takes webhooks on.
    let path: String

    /// The reasons the example fails, or nil when it passes.
    func run(_ example: RuleExample, _ steps: [WebhookExampleStep]) async -> String? {
        let definition = engine.bot
        guard let route = definition.webhook(path: path)?.route else {
            return "no webhooks entry serves \(path)"
        }
        var world = World(rules: AlertRules(definition: definition, engine: engine),
                          variables: definition.initialState.merging(example.state) { _, given in given })
        var now = (example.now ?? RuleExample.defaultNow).milliseconds
        // The runner arms its dead-man's switches when it starts: here, at the example's start.
        await world.start(at: now)
        var problems: [String] = []
        for (index, step) in steps.enumerated() {
            now += Int64(step.after.seconds * 1000)
            let label = steps.count == 1 ? "" : "notification \(index + 1)"
                + (step.after.seconds > 0 ? " (after \(step.after))" : "") + ": "
            let done: Step
            do {
                done = try await world.take(step, route: route, path: path, now: now)
            } catch {
                problems.append(label + error.description)
                continue
            }
            problems += done.problems(against: step.expectation, world: world).map { label + $0 }
        }
        return problems.isEmpty ? nil : problems.joined(separator: "; ")
    }

    /// Why a notification could not be taken.
    struct Unreadable: Error, CustomStringConvertible {
        let description: String
    }

    /// The alert state and variables the example's notifications build up.
    struct World {
        let rules: AlertRules
        var alerts = AlertState()
        var variables: [String: TemplateValue]
        /// Ids handed to living messages as they are "posted".
        private var posted: Int64 = 0

        init(rules: AlertRules, variables: [String: TemplateValue]) {
            self.rules = rules
            self.variables = variables
        }

        /// Arms the dead-man's switches, as the runner does when it starts.
        mutating func start(at now: Int64) async {
            var done = Step()
            apply(await rules.advance(now: now, alerts: alerts, variables: variables).0, &done)
        }

        /// Time passes to `now`, then the notification (if any) arrives.
        mutating func take(_ step: WebhookExampleStep, route: WebhookRoute, path: String,
                           now: Int64) async throws(Unreadable) -> Step {
            var done = Step()
            let (advanced, advancedRan, _) = await rules.advance(now: now, alerts: alerts, variables: variables)
            apply(advanced, &done)
            done.fired += advancedRan.map(\.rule)
            if let body = step.body {
                let payload: WebhookPayload
                do {
                    payload = try route.format.decode(body, limits: route.limits)
                } catch {
                    throw Unreadable(description: "the payload (\(step.source)) does not read as a \(route.format.rawValue) "
                                     + "notification: \(error.message)")
                }
                let candidates = rules.candidates(for: payload, path: path, now: now)
                let fresh = AlertRules.fresh(candidates, in: alerts, now: now)
                done.duplicate = !candidates.isEmpty && fresh.isEmpty
                if !fresh.isEmpty {
                    let delivery = WebhookDelivery(number: alerts.nextDelivery, path: path, format: route.format,
                                                   body: "", receivedAt: now, rules: fresh.map(\.rule),
                                                   marks: fresh.compactMap(\.mark))
                    alerts.store(delivery)
                    let (change, ran) = await rules.process(payload, rules: delivery.rules, path: path,
                                                            number: delivery.number, receivedAt: now, alerts: alerts,
                                                            variables: variables)
                    apply(change, &done)
                    done.fired += ran.map(\.rule)
                    done.failures += ran.flatMap { $0.report.outcomes }.compactMap { outcome in
                        if case .failed(let error) = outcome.status {
                            return "rule '\(error.rule)' action \(error.actionIndex + 1) failed: \(error.message)"
                        }
                        return nil
                    }
                }
            }
            postLivingMessages()
            done.state = variables
            return done
        }

        private mutating func apply(_ change: AlertChange, _ done: inout Step) {
            alerts.apply(change)
            for operation in change.state { operation.apply(to: &variables) }
            done.stateChanged = done.stateChanged || !change.state.isEmpty
            done.messages += change.messages
            for update in change.incidents {
                done.touched.removeAll { $0.book == update.book && $0.groupKey == update.groupKey }
                done.touched.append(update)
            }
        }

        /// What the outbox does once it sent a living message: its id is known.
        private mutating func postLivingMessages() {
            for (book, incidents) in alerts.books.sorted(by: { $0.key < $1.key }) {
                for (groupKey, incident) in incidents.incidents.sorted(by: { $0.key < $1.key }) where incident.messageID == nil {
                    posted += 1
                    alerts.posted(IncidentPost(book: book, groupKey: groupKey, messageID: MessageID(rawValue: posted)))
                }
            }
        }

        /// The incident as it is now, with how its message renders.
        func incident(_ update: IncidentUpdate) -> (Incident, IncidentRenderer)? {
            guard let incident = alerts.books[update.book]?[update.groupKey] ?? update.incident,
                  let action = IncidentAction(book: update.book, in: rules.definition) else { return nil }
            return (incident, action.renderer)
        }
    }

    /// What one notification did.
    struct Step {
        var messages: [PendingMessage] = []
        /// Incidents it changed, in the order first changed.
        var touched: [IncidentUpdate] = []
        var fired: [String] = []
        var failures: [String] = []
        var duplicate = false
        var stateChanged = false
        var state: [String: TemplateValue] = [:]

        /// Every way it differs from `expectation`.
        func problems(against expectation: Expectation, world: World) -> [String] {
            var problems = failures
            let sends = messages.filter { $0.incident == nil }
            if expectation.nothing {
                var did: [String] = []
                if !touched.isEmpty { did.append("change \(touched.count) incident(s)") }
                did += sends.map { "send to \($0.to) \(ObservedEffects.quote($0.text))" }
                if stateChanged { did.append("change the state") }
                if !did.isEmpty {
                    problems.append("expected nothing, but the bot would: " + did.joined(separator: ", ") + firedNote)
                }
                return problems
            }
            if let expected = expectation.incidents {
                problems += compare(expected, world: world)
            }
            if let wanted = expectation.messages(.send) {
                let matched = wanted.count == sends.count && zip(wanted, sends).allSatisfy { want, got in
                    (want.text == nil || want.text == got.text) && (want.to == nil || want.to?.description == got.to)
                }
                if !matched {
                    let shown = wanted.map { [$0.to.map { "to \($0)" }, $0.text.map(ObservedEffects.quote)]
                        .compactMap { $0 }.joined(separator: " ") }
                    problems.append("expected send [" + shown.joined(separator: ", ") + "], got ["
                                    + sends.map { "to \($0.to) \(ObservedEffects.quote($0.text))" }.joined(separator: ", ")
                                    + "]" + (sends.isEmpty ? firedNote : ""))
                }
            }
            for entry in expectation.state ?? [] {
                let path = entry.key.split(separator: ".").map(String.init)
                let actual = StatePath.value(at: path, in: state)
                if actual != entry.value {
                    problems.append("expected state \(entry.key) = \(entry.value.interpolatedText), got "
                                    + (actual.map(\.interpolatedText) ?? "nothing"))
                }
            }
            for rule in expectation.rules ?? [] where !fired.contains(rule.value) {
                problems.append("expected rule '\(rule.value)' to fire\(firedNote)")
            }
            return problems
        }

        private var firedNote: String {
            if duplicate { return " (a repeat: the rules' dedupe folded it into an earlier notification)" }
            return " (rules fired: " + (fired.isEmpty ? "none" : fired.joined(separator: ", ")) + ")"
        }

        private func compare(_ expected: [ExpectedIncident], world: World) -> [String] {
            let changed = touched.filter { $0.incident != nil }
            guard expected.count == changed.count else {
                return ["expected \(expected.count) incident(s) changed, got \(changed.count)"
                        + (changed.isEmpty ? firedNote : ": " + changed.map(\.groupKey).joined(separator: ", "))]
            }
            var problems: [String] = []
            for (want, update) in zip(expected, changed) {
                guard let (incident, renderer) = world.incident(update) else { continue }
                let key = IncidentBookKey(update.book)
                func differ(_ what: String, _ wanted: String, _ got: String) {
                    problems.append("expected incident \(what) \(ObservedEffects.quote(wanted)), got "
                                    + ObservedEffects.quote(got) + ObservedEffects.firstDifference(wanted, got))
                }
                if let to = want.to, to.description != key?.conversation { differ("to", to.description, key?.conversation ?? "-") }
                if let group = want.group, group != incident.groupKey { differ("group", group, incident.groupKey) }
                if let title = want.title, title != renderer.title(of: incident) {
                    differ("title", title, renderer.title(of: incident))
                }
                let state = incident.isClosed ? "resolved" : "firing"
                if let wanted = want.state, wanted != state { differ("state", wanted, state) }
                if let firing = want.firing, firing != incident.firingCount {
                    problems.append("expected \(firing) firing, got \(incident.firingCount)")
                }
                if let resolved = want.resolved, resolved != incident.resolvedCount {
                    problems.append("expected \(resolved) resolved, got \(incident.resolvedCount)")
                }
                if let lines = want.lines, lines != renderer.lines(for: incident) {
                    problems.append("expected incident lines [" + lines.map(ObservedEffects.quote).joined(separator: ", ")
                                    + "], got [" + renderer.lines(for: incident).map(ObservedEffects.quote)
                                        .joined(separator: ", ") + "]")
                }
                if let replies = want.replies {
                    let got = messages.filter {
                        $0.incident?.book == update.book && $0.incident?.groupKey == update.groupKey
                            && $0.incident?.part == .reply
                    }.map(\.text)
                    if replies != got {
                        problems.append("expected incident replies [" + replies.map(ObservedEffects.quote)
                                            .joined(separator: ", ") + "], got ["
                                        + got.map(ObservedEffects.quote).joined(separator: ", ") + "]")
                    }
                }
                if let message = want.message, message != renderer.message(for: incident) {
                    differ("message", message, renderer.message(for: incident))
                }
            }
            return problems
        }
    }
}
