import Foundation
import IMBots
import IMProtocol
import Templates
import Testing

/// Helpers shared by the bot tests: loading bots from text, building events and contexts.
enum Bots {
    /// A folder for files the tests write (avatars...).
    static let directory: String = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("imbots-tests-\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.path
    }()

    /// The fixtures folder next to this file.
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// Loads a bot from YAML text named `bot.yaml`.
    static func load(_ text: String, environment: [String: String] = [:],
                     file: String = "bot.yaml") throws(BotConfigErrors) -> BotDefinition {
        try BotLoader.load(text: text, file: file, directory: directory, environment: environment)
    }

    /// A bot with the usual header and the given `rules:` block (indented as in a file).
    static func withRules(_ rules: String, header: String = "") throws(BotConfigErrors) -> BotDefinition {
        try load("""
            bot: testbot
            account: { username: testbot, password: secret-password }
            \(header)
            rules:
            \(rules)
            """)
    }

    /// The error lines (`file:line:column: message`) loading `text` gives; empty when it loads.
    static func errors(_ text: String, environment: [String: String] = [:]) -> [String] {
        do {
            _ = try load(text, environment: environment)
            return []
        } catch {
            return error.errors.map(\.description)
        }
    }

    /// A context for `bot` at `now` (default: Monday 2025-01-06 10:00 UTC).
    static func context(_ bot: BotDefinition, now: String = "2025-01-06T10:00:00Z",
                        state: [String: TemplateValue]? = nil) -> BotContext {
        BotContext(definition: bot, state: state, now: Timestamp(rfc3339: now) ?? Timestamp(milliseconds: 0))
    }

    /// A message event from `user` with `text`, in a direct conversation unless `in` says otherwise.
    static func message(_ text: String, from user: String = "alice", in address: String? = nil,
                        position: Int64 = 7) -> BotEvent {
        BotEvent.message(from: user, text: text, in: address.flatMap { ConversationAddress($0) },
                         position: position, at: Timestamp(milliseconds: 1_736_157_600_000))
    }

    /// The names of the rules that fire for `event`.
    static func fired(_ bot: BotDefinition, _ event: BotEvent, now: String = "2025-01-06T10:00:00Z") -> [String] {
        RuleEngine(bot: bot).decide(event, context: context(bot, now: now)).firings.map(\.rule.name)
    }

    /// Whether a one-rule bot with this `when` (flow mapping) fires for `text`.
    static func matches(_ when: String, _ text: String, from user: String = "alice",
                        in address: String? = nil) throws -> Bool {
        let bot = try withRules("  - { name: r, when: \(when), do: [ { reply: ok } ] }")
        return fired(bot, message(text, from: user, in: address)) == ["r"]
    }
}
