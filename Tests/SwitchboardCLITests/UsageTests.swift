import Testing
@testable import switchboard

@Suite("the command line")
struct UsageTests {
    static let commandNames: [String] = CLI.commands.map { type in type.name }

    @Test func anUnknownCommandGetsASuggestionAndExitsTwo() async {
        let result = await Sandbox().run(["chekc", "bots"])

        #expect(result.status == 2)
        #expect(result.errorLines == ["switchboard: unknown command 'chekc' (did you mean 'check'?); run 'switchboard --help'"])
    }

    @Test func anUnknownOptionGetsASuggestionAndExitsTwo() async {
        let result = await Sandbox().run(["test", "--verbos"])

        #expect(result.status == 2)
        #expect(result.errorLines == [
            "switchboard: unknown option --verbos (did you mean --verbose?)",
            "run 'switchboard test --help' for usage",
        ])
    }

    @Test func anOptionWithoutItsValueIsAUsageError() async {
        let result = await Sandbox().run(["explain", "--bot"])

        #expect(result.status == 2)
        #expect(result.errorLines.first == "switchboard: --bot needs a value")
    }

    @Test func noCommandPrintsTheListAndExitsTwo() async {
        let result = await Sandbox().run([])

        #expect(result.status == 2)
        for command in CLI.commands {
            #expect(result.output.contains("  \(command.name) "), "the list names \(command.name)")
        }
    }

    @Test(arguments: UsageTests.commandNames)
    func helpDescribesTheCommandAndEveryOption(_ name: String) async throws {
        let type = try #require(CLI.commands.first { $0.name == name })

        let result = await Sandbox().run([name, "--help"])

        #expect(result.status == 0)
        #expect(result.output.hasPrefix("usage: switchboard \(name)"))
        for option in type.options.union(type.flags).sorted() {
            #expect(result.output.contains("--\(option)"), "'\(name) --help' mentions --\(option)")
        }
    }

    @Test func theTopLevelHelpExitsZero() async {
        let result = await Sandbox().run(["--help"])

        #expect(result.status == 0)
        #expect(result.output.contains("usage: switchboard <command> [options]"))
    }
}
