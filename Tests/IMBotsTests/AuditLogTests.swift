import Foundation
@testable import IMBots
import IMClient
import Lifecycle
import Logging
import Testing

/// The audit log says what the bot did: one line per action it took (or skipped), and
/// where evaluation stopped, which is no action.
@Suite struct AuditLogTests {
    /// The lines the reporter writes for `event` against `bot`, with `effects`.
    static func lines(_ bot: BotDefinition, _ event: BotEvent, effects: some BotEffects) async throws -> [[String: String]] {
        let path = Bots.directory + "/audit-\(UUID().uuidString).log"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let metrics = RunnerMetrics()
        let logger = Logger(label: "test", sink: LogWatch())
        let audit = try AuditLog(path: path, metrics: metrics, logger: logger)
        let reporter = BotReporter(bot: bot.name, metrics: metrics, audit: audit, logger: logger, time: ManualTime())
        let context = Bots.context(bot)
        let decision = RuleEngine(bot: bot).decide(event, context: context)
        let report = await ActionRunner.run(decision, event: event, context: context, effects: effects)
        reporter.record(report, event: event.event, version: bot.version)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
            return object.compactMapValues { value in (value as? String) ?? (value as? NSNumber)?.stringValue }
        }
    }

    @Test func afterAFailedHTTPActionTheRestOfTheRuleAndItsStopAreRecorded() async throws {
        let bot = try Bots.withRules("""
              - name: ticket
                when: { command: ticket }
                do:
                  - http: { url: "https://tickets.example.com", as: created }
                  - reply: "Ticket {{created.body.id}} opened."
                  - stop: true
              - name: fallback
                do: [ { reply: "I did not get that." } ]
            """)
        let effects = RecordingEffects { _ in TransportResponse(status: 503) }
        let lines = try await Self.lines(bot, Bots.message("/ticket printer"), effects: effects)

        #expect(lines.map { $0["rule"] } == ["ticket", "ticket", "ticket"])
        #expect(lines.map { $0["action"] } == ["http", "reply", nil])
        #expect(lines.map { $0["outcome"] } == ["failed", "skipped", "stopped"])
        #expect(lines[1]["detail"] == "ticket action 2 (reply): not run, because action 1 of the rule failed")
        #expect(lines[2]["detail"] == "its stop ended evaluation: no later rule ran for this event (it holds although "
                + "action 1, http, failed)")
        #expect(!lines.contains { $0["action"] == "stop" })
        #expect(lines.allSatisfy { $0["config_version"] == bot.version && $0["event"] == "7" })
    }

    @Test func aRuleThatOnlyStopsIsRecordedAsStoppingWithItsMode() async throws {
        let bot = try Bots.withRules("""
              - { name: quiet, mode: dry, when: { from: bob }, do: [ { stop: true } ] }
              - { name: echo, do: [ { reply: "{{message.text}}" } ] }
            """)
        let fromBob = try await Self.lines(bot, Bots.message("hi", from: "bob"), effects: RecordingEffects())
        #expect(fromBob.count == 1)
        #expect(fromBob.first?["outcome"] == "stopped")
        #expect(fromBob.first?["mode"] == "dry")
        #expect(fromBob.first?["action"] == nil)
        let fromAlice = try await Self.lines(bot, Bots.message("hi", from: "alice"), effects: RecordingEffects())
        #expect(fromAlice.map { $0["outcome"] } == ["performed"])
        #expect(fromAlice.map { $0["action"] } == ["reply"])
    }

    /// Log rotation: once the file is renamed, a reopen (the runner's SIGHUP) starts a new
    /// one at the path, private like the first; the next line lands there and the renamed
    /// file keeps only what came before.
    @Test func afterARenameAReopenedLogWritesTheNextLineToANewPrivateFile() throws {
        let path = Bots.directory + "/audit-\(UUID().uuidString).log"
        defer {
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: path + ".1")
        }
        let logs = LogWatch()
        let audit = try AuditLog(path: path, metrics: RunnerMetrics(), logger: Logger(label: "test", sink: logs))
        func entry(_ rule: String) -> AuditLog.Entry {
            AuditLog.Entry(at: "2026-01-05T09:00:00Z", bot: "b", rule: rule, configVersion: "v", action: "reply",
                           mode: "enforce", outcome: "performed")
        }
        audit.record(entry("first"))
        try FileManager.default.moveItem(atPath: path, toPath: path + ".1")
        audit.record(entry("second"))  // still the open file, now renamed
        audit.reopen()
        audit.record(entry("third"))

        let renamed = try String(contentsOfFile: path + ".1", encoding: .utf8)
        let fresh = try String(contentsOfFile: path, encoding: .utf8)
        #expect(renamed.contains(#""rule":"first""#) && renamed.contains(#""rule":"second""#))
        #expect(!renamed.contains(#""rule":"third""#))
        #expect(fresh.split(separator: "\n").count == 1 && fresh.contains(#""rule":"third""#), "\(fresh)")
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(logs.lines.contains { $0.message == "reopened the audit log \(path)" })
    }
}
