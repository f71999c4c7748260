import IMBots

/// `switchboard test`: runs the `examples:` of every rule, offline.
struct TestCommand: Command {
    static let name = "test"
    static let summary = "run the examples written in bot files, offline"
    static let help = """
        usage: switchboard test [--config FILE] [--verbose] [FILES...]

        Runs every 'examples:' entry of every rule without a server: each example becomes
        an event, the whole rule set decides, and the actions run against a recorder with
        the example's scripted http responses. Each failing example is printed with where
        it is written and what differed:

          bots/helpdesk.yaml:76:9: rule 'greet' example 2: failed: expected reply "Hi Bobby!", got "Hi bobby!" (first difference at character 4)

        The last line is the count: 'N passed, N failed'.

        FILES are bot files or folders of them (their *.yaml and *.yml files); without
        FILES, every bot file of the configuration's bots folder. The files are loaded
        as 'switchboard check' loads them; when one has a problem, the problems are
        printed and no example runs.

        options:
        \(BotSelection.help)
          --verbose          list the passing examples too

        exit codes: 0 every example passed, 1 an example failed, 2 a file has problems (or usage)
        """
    static let options: Set<String> = ["config"]
    static let flags: Set<String> = ["verbose"]

    var selection: BotSelection
    var verbose: Bool

    init(arguments: Arguments) throws {
        selection = BotSelection(configPath: arguments[option: "config"], paths: arguments.positionals)
        verbose = arguments.has("verbose")
    }

    func run() async throws -> Int32 {
        let loaded = await selection.load(environment: CommandContext.current.environment)
        let problems = loaded.problems
        guard problems.isEmpty else {
            for problem in problems { printDiagnostic(problem) }
            throw ConfigurationError("\(CheckCommand.counted(problems.count, "problem")) found; "
                                     + "no example was run (see 'switchboard check')")
        }
        var passed = 0
        var failed = 0
        for bot in loaded.bots {
            let results = await ExampleRunner.run(bot: bot)
            if verbose, results.isEmpty {
                printOutput("\(bot.file): bot '\(bot.name)' has no examples")
            }
            for result in results {
                if result.passed {
                    passed += 1
                    if verbose { printOutput(result.description) }
                } else {
                    failed += 1
                    printOutput(result.description)
                }
            }
        }
        printOutput("\(passed) passed, \(failed) failed")
        return failed == 0 ? ExitCode.ok : ExitCode.failure
    }
}
