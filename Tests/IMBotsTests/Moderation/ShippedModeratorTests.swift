import Foundation
import IMBots
import IMProtocol
import Testing

/// `bots/moderator.yaml` as shipped (the file `make up` runs): it loads without secrets,
/// keeps the settings its guide promises, and every example in it passes.
@Suite struct ShippedModeratorTests {
    static let file = Bots.fixtures.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("bots/moderator.yaml").path

    @Test func itLoadsWithTheSettingsItsGuideDescribes() throws {
        let bot = try BotLoader.load(file: Self.file, environment: [:])
        #expect(bot.name == "moderator")
        // No default secret: unset, the runner generates the password at the first start.
        #expect(bot.account.password == "")
        #expect(bot.account.passwordVariable == "MODERATOR_PASSWORD")
        #expect(bot.groupSettings["lobby"]?.join == .open)
        #expect(bot.groupSettings["lobby"]?.newMembers == .restricted)
        #expect(bot.moderation.log == .group("mods"))
        let modes = Dictionary(uniqueKeysWithValues: bot.rules.map { ($0.name, $0.mode) })
        #expect(modes["flood"] == .dry)
        #expect(modes["banned-words"] == .enforce)
        for name in ["welcome", "verify", "raid-start", "raid-end", "raid-off", "report", "case", "undo", "morning-report"] {
            #expect(modes[name] != nil, "rule \(name) is missing")
        }
    }

    @Test func everyExamplePasses() async throws {
        let bot = try BotLoader.load(file: Self.file, environment: [:])
        let results = await ExampleRunner.run(bot: bot)
        #expect(results.count >= 8)
        for result in results where !result.passed {
            Issue.record("\(result)")
        }
    }
}
