import Foundation
import Testing

@Suite("switchboard test")
struct TestCommandTests {
    @Test func passingExamplesEndWithTheCountAndExitZero() async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let file = try sandbox.write("bots/greeter.yaml", BotTexts.greeter)

        let result = await sandbox.run(["test", file])

        #expect(result.status == 0)
        #expect(result.outputLines == ["3 passed, 0 failed"])
        #expect(result.errors.isEmpty)
    }

    @Test func failingExamplesArePrintedWithPositionAndDifferenceAndExitOne() async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let file = try sandbox.write("bots/failing.yaml", BotTexts.failing)

        let result = await sandbox.run(["test", file])

        #expect(result.status == 1)
        #expect(result.outputLines == [
            "\(file):10:9: rule 'greet' example 2: failed: expected reply \"Hi Bob!\", got \"Hi bob!\" "
                + "(first difference at character 4)",
            "\(file):19:9: rule 'quiet' example 2: failed: expected nothing, but the bot would: "
                + "reply \"Hi alice!\", reply \"...\" (rules fired: greet, quiet)",
            "2 passed, 2 failed",
        ])
    }

    @Test func verboseListsThePassingExamplesToo() async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let file = try sandbox.write("bots/greeter.yaml", BotTexts.greeter)

        let result = await sandbox.run(["test", "--verbose", file])

        #expect(result.status == 0)
        #expect(result.outputLines == [
            "\(file):11:9: rule 'greet' example 1: passed",
            "\(file):12:9: rule 'greet' example 2: passed",
            "\(file):18:9: rule 'fallback' example 1: passed",
            "3 passed, 0 failed",
        ])
    }

    @Test func theExamplesOfEveryBotInTheFolderRun() async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let config = try sandbox.write("config.yaml", "runner: { bots: bots }\n")
        try sandbox.write("bots/failing.yaml", BotTexts.failing)
        try sandbox.write("bots/greeter.yaml", BotTexts.greeter)

        let result = await sandbox.run(["test", "--config", config])

        #expect(result.status == 1)
        #expect(result.outputLines.last == "5 passed, 2 failed")
    }

    @Test func aFileWithProblemsRunsNoExampleAndExitsTwo() async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let broken = try sandbox.write("bots/broken.yaml", BotTexts.broken)
        let good = try sandbox.write("bots/greeter.yaml", BotTexts.greeter)

        let result = await sandbox.run(["test", broken, good])

        #expect(result.status == 2)
        #expect(result.output.isEmpty)
        #expect(result.errorLines.filter { $0.hasPrefix(broken + ":") }.count == 4)
        #expect(result.errorLines.last == "switchboard: 4 problems found; no example was run (see 'switchboard check')")
    }

    @Test func theHelpdeskExampleBotPassesItsOwnExamples() async throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("IMBotsTests/Fixtures/helpdesk.yaml").path
        let sandbox = Sandbox()
        defer { sandbox.remove() }

        let result = await sandbox.run(["test", fixture])

        #expect(result.status == 0)
        let summary = try #require(result.outputLines.last)
        #expect(summary.hasSuffix(" passed, 0 failed"))
        #expect(summary != "0 passed, 0 failed")
    }
}
