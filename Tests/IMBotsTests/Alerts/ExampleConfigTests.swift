import Foundation
import TestSupport
import Testing

/// The shipped `examples/alertmanager.yml` is a config Alertmanager accepts.
@Suite("Shipped Alertmanager example")
struct ExampleConfigTests {
    @Test("amtool check-config accepts examples/alertmanager.yml, which points at the runner's default listener")
    func amtoolAccepts() async throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let path = repository.appendingPathComponent("examples/alertmanager.yml").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("url: http://127.0.0.1:8090/hooks/alertmanager"))
        #expect(!text.contains("credentials:"), "no secret is shipped; the token comes from a file")
        let log = TestServer.temporaryDirectory() + "/amtool.log"
        let amtool = try ChildProcess("/usr/bin/amtool", arguments: ["check-config", path], log: log)
        let status = try await amtool.exitStatus()
        #expect(status == 0, "\(amtool.logTail())")
    }
}

/// The shipped PagerDuty and Slack examples: a config Alertmanager accepts, and a bot
/// file `check` accepts, serving the routes the config names.
@Suite("Shipped PagerDuty and Slack examples")
struct PagerDutySlackExampleTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    @Test func amtoolAcceptsTheConfigAndCheckTheBot() async throws {
        let config = Self.repository.appendingPathComponent("examples/alertmanager-pagerduty-slack.yml").path
        let text = try String(contentsOfFile: config, encoding: .utf8)
        #expect(text.contains("url: http://127.0.0.1:8090/hooks/pagerduty"))
        #expect(text.contains("routing_key_file:") && text.contains("api_url_file:"), "no secret is shipped")
        let log = TestServer.temporaryDirectory() + "/amtool.log"
        let amtool = try ChildProcess("/usr/bin/amtool", arguments: ["check-config", config], log: log)
        #expect(try await amtool.exitStatus() == 0, "\(amtool.logTail())")
        let bot = try String(
            contentsOfFile: Self.repository.appendingPathComponent("examples/pagerduty-slack-bot.yaml").path, encoding: .utf8)
        #expect(Bots.errors(bot).isEmpty, "\(Bots.errors(bot))")
        #expect(bot.contains("path: /hooks/pagerduty") && bot.contains("path: /hooks/slack"))
    }
}
