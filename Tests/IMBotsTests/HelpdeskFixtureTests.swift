import Foundation
import IMBots
import IMProtocol
import Testing

@Suite struct HelpdeskFixtureTests {
    let file = Bots.fixtures.appendingPathComponent("helpdesk.yaml").path

    @Test func theHelpdeskFixtureLoadsWithItsSettings() throws {
        let bot = try BotLoader.load(file: file, environment: [:])
        #expect(bot.name == "helpdesk")
        #expect(bot.account.username == "helpdesk")
        #expect(bot.account.password == "change-me-please")
        #expect(bot.account.register)
        #expect(bot.listen == [.direct, .group("support")])
        #expect(bot.timezone == "Europe/Berlin")
        #expect(bot.backlog == .newerThan(ConfigDuration(seconds: 600)))
        #expect(bot.limits.perGroup == Rate(count: 20, per: ConfigDuration(seconds: 60)))
        #expect(bot.maxRepliesPerMinute == 20)
        #expect(bot.profile?.avatarPath == Bots.fixtures.appendingPathComponent("assets/helpdesk.png").path)
        #expect(bot.version.count == 12)
        #expect(bot.rules.map(\.name).contains("ticket"))
    }

    @Test func everyHelpdeskExamplePasses() async throws {
        let bot = try BotLoader.load(file: file, environment: [:])
        let results = await ExampleRunner.run(bot: bot)
        #expect(results.count >= 20)
        for result in results where !result.passed {
            Issue.record("\(result)")
        }
    }

    @Test func theEnvironmentFillsInThePasswordAndTicketURL() throws {
        let bot = try BotLoader.load(file: file, environment: [
            "HELPDESK_PASSWORD": "from-the-environment", "TICKETS_URL": "https://tickets.internal/api"])
        #expect(bot.account.password == "from-the-environment")
    }
}
