import Foundation
import IMProtocol
import Templates

/// What the actions of one example did (or, for dry and shadow rules, would do), in the
/// form examples compare against.
struct ObservedEffects {
    /// Messages, profile updates and http calls, in order.
    var effects: [ActionEffect] = []
    /// What moderation actions did, in order.
    var moderation: [ModerationEffect] = []
    var failures: [ActionError] = []
    /// The state after every state change, dry ones included.
    var state: [String: TemplateValue]
    let initialState: [String: TemplateValue]
    let fired: [String]

    init(decision: Decision, report: ActionReport, initialState: [String: TemplateValue]) {
        self.initialState = initialState
        self.state = initialState
        self.fired = decision.firings.map(\.rule.name)
        for outcome in report.outcomes {
            switch outcome.status {
            case .performed(let effect), .dryRun(let effect):
                switch effect {
                case .state(let changes):
                    for change in changes {
                        let path = change.key.split(separator: ".").map(String.init)
                        StatePath.set(change.value, at: path, in: &state)
                    }
                case .moderation(let done): moderation.append(done)
                case .message, .profile, .http, .incident: effects.append(effect)
                }
            case .failed(let error):
                failures.append(error)
            case .skipped:
                break
            }
        }
    }

    /// Every way the observed effects differ from the expectation.
    func problems(against expectation: Expectation, event: BotEvent) -> [String] {
        var problems = failures.map { "rule '\($0.rule)' action \($0.actionIndex + 1) failed: \($0.message)" }
        if expectation.nothing {
            if !effects.isEmpty || !moderation.isEmpty || state != initialState {
                var did = effects.map(Self.describe) + moderation.map(\.description)
                if state != initialState { did.append("changed the state") }
                problems.append("expected nothing, but the bot would: " + did.joined(separator: ", ")
                                + firedNote)
            }
            return problems
        }
        for entry in expectation.messages {
            let actual = messages(entry.kind)
            // Those that answer in place are told by their texts; the others by where they go too.
            if Self.addressed.contains(entry.kind) {
                problems += compareMessages("\(entry.kind)", expected: entry.expected, actual: actual, event: event)
            } else {
                problems += compareTexts("\(entry.kind)", expected: entry.expected.compactMap(\.text),
                                         actual: actual.map(\.text))
            }
        }
        if let profiles = expectation.profileUpdates {
            let actual = effects.compactMap { effect -> ProfileUpdate? in
                if case .profile(let update) = effect { return update }
                return nil
            }
            if actual.count != profiles.count || !zip(profiles, actual).allSatisfy(Self.matches) {
                problems.append("expected \(profiles.count) profile update(s), got "
                                + (actual.isEmpty ? "none" : actual.map { ActionEffect.profile($0).description }
                                    .joined(separator: ", ")) + firedNote)
            }
        }
        for entry in expectation.state ?? [] {
            let path = entry.key.split(separator: ".").map(String.init)
            let actual = StatePath.value(at: path, in: state)
            if actual != entry.value {
                problems.append("expected state \(entry.key) = \(Self.show(entry.value)), got "
                                + (actual.map(Self.show) ?? "nothing"))
            }
        }
        problems += moderationProblems(against: expectation.moderation)
        for rule in expectation.rules ?? [] where !fired.contains(rule.value) {
            problems.append("expected rule '\(rule.value)' to fire\(firedNote)")
        }
        if let actions = expectation.actions {
            let matched = actions.count == effects.count
                && zip(actions, effects).allSatisfy { matches($0, $1, event: event) }
            if !matched {
                problems.append("expected actions [" + actions.map(Self.describe).joined(separator: ", ")
                                + "], got [" + effects.map(Self.describe).joined(separator: ", ") + "]" + firedNote)
            }
        }
        return problems
    }

    // MARK: Comparisons

    var firedNote: String {
        " (rules fired: " + (fired.isEmpty ? "none" : fired.joined(separator: ", ")) + ")"
    }

    /// The message actions that name where they go (`to:`).
    static let addressed: Set<ActionKind> = [.send, .forward]

    private func messages(_ kind: ActionKind) -> [OutgoingMessage] {
        effects.compactMap { effect in
            if case .message(let message, _) = effect, message.action == kind { return message }
            return nil
        }
    }

    private func compareTexts(_ kind: String, expected: [String], actual: [String]) -> [String] {
        if expected.count == 1, actual.count == 1, expected[0] != actual[0] {
            return ["expected \(kind) \(Self.quote(expected[0])), got \(Self.quote(actual[0]))"
                    + Self.firstDifference(expected[0], actual[0])]
        }
        guard expected != actual else { return [] }
        if actual.isEmpty {
            return ["expected \(kind) " + expected.map(Self.quote).joined(separator: ", ")
                    + ", but there was no \(kind)\(firedNote)"]
        }
        return ["expected \(kind) [" + expected.map(Self.quote).joined(separator: ", ") + "], got ["
                + actual.map(Self.quote).joined(separator: ", ") + "]\(firedNote)"]
    }

    private func compareMessages(_ kind: String, expected: [ExpectedMessage], actual: [OutgoingMessage],
                                 event: BotEvent) -> [String] {
        let matched = expected.count == actual.count
            && zip(expected, actual).allSatisfy { Self.matches($0, $1, event: event) }
        guard !matched else { return [] }
        let wanted = expected.map { message in
            [message.to.map { "to \($0)" }, message.text.map(Self.quote)].compactMap { $0 }.joined(separator: " ")
        }
        let got = actual.map { "to \($0.to) \(Self.quote($0.text))" }
        return ["expected \(kind) [" + wanted.joined(separator: ", ") + "], got ["
                + got.joined(separator: ", ") + "]" + (got.isEmpty ? firedNote : "")]
    }

    private static func matches(_ expected: ExpectedMessage, _ actual: OutgoingMessage, event: BotEvent) -> Bool {
        if let text = expected.text, text != actual.text { return false }
        let to = expected.to ?? event.conversation?.address
        return to == nil || to == actual.to
    }

    private static func matches(_ expected: ExpectedProfile, _ actual: ProfileUpdate) -> Bool {
        (expected.nickname == nil || expected.nickname == actual.nickname)
            && (expected.signature == nil || expected.signature == actual.signature)
            && (expected.avatarURL == nil || expected.avatarURL == actual.avatarURL)
            && (expected.attrs == nil || expected.attrs == actual.attrs)
    }

    private func matches(_ expected: ExpectedEffect, _ actual: ActionEffect, event: BotEvent) -> Bool {
        switch (expected, actual) {
        case (.message(let kind, let wanted), .message(let message, _)):
            return message.action == kind && Self.matches(wanted, message, event: event)
        case (.updateProfile(let wanted), .profile(let update)):
            return Self.matches(wanted, update)
        case (.http(let name), .http(let call)):
            return call.name == name || call.url == name
        default:
            return false
        }
    }

    // MARK: Descriptions

    private static func describe(_ effect: ActionEffect) -> String {
        switch effect {
        case .message(let message, _):
            message.action == .reply ? "reply \(quote(message.text))"
                : "\(message.action) to \(message.to) \(quote(message.text))"
        case .profile: "update_profile (\(effect))"
        case .http(let call): "http \(call.method) \(call.url)" + (call.name.map { " (as \($0))" } ?? "")
        case .state, .moderation, .incident: effect.description
        }
    }

    private static func describe(_ expected: ExpectedEffect) -> String {
        switch expected {
        case .message(let kind, let message):
            (["\(kind)"] + [message.to.map { "to \($0)" }, message.text.map(quote)].compactMap { $0 })
                .joined(separator: " ")
        case .updateProfile: "update_profile"
        case .http(let name): "http \(name)"
        }
    }

    static func quote(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n") + "\""
    }

    private static func show(_ value: TemplateValue) -> String {
        switch value {
        case .string(let text): quote(text)
        case .null: "null"
        default: value.interpolatedText.isEmpty ? StatePath.describe(value) : value.interpolatedText
        }
    }

    /// ` (first difference at character N)`.
    static func firstDifference(_ expected: String, _ actual: String) -> String {
        let position = zip(expected, actual).prefix { $0 == $1 }.count + 1
        return " (first difference at character \(position))"
    }
}
