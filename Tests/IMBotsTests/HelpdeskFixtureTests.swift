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
        // No default secret: unset, the runner generates the password at the first start.
        #expect(bot.account.password == "")
        #expect(bot.account.passwordVariable == "HELPDESK_PASSWORD")
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

/// What ships in `bots/` runs with nothing set and carries no secret of its own.
@Suite struct ShippedBotsTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("bots").path

    @Test func everyShippedBotLoadsWithAnEmptyEnvironmentAndNoDefaultSecret() async throws {
        let catalog = await BotCatalog.read(folder: Self.folder, environment: [:]).runningExamples()
        #expect(catalog.problems.isEmpty, "\(catalog.problems)")
        #expect(!catalog.bots.isEmpty)
        for bot in catalog.bots {
            // Empty: generated at the first start and kept in the runner's state (0600).
            #expect(bot.account.password.isEmpty, "bot \(bot.name) ships a password")
            let text = try String(contentsOfFile: bot.file, encoding: .utf8)
            for line in text.split(separator: "\n") where ["password", "secret", "token"].contains(where: {
                line.lowercased().contains($0)
            }) {
                // ${NAME:-default} with a default would be a secret everyone knows.
                #expect(line.range(of: #"\$\{[A-Za-z_][A-Za-z0-9_]*:-[^}]+\}"#, options: .regularExpression) == nil,
                        "\(bot.file): \(line)")
            }
        }
    }
}
