import IMBots

/// `switchboard check`: every problem of the bot files, with file, line and column.
struct CheckCommand: Command {
    static let name = "check"
    static let summary = "check bot files (and config.yaml): every problem with file:line:column"
    static let help = """
        usage: switchboard check [--config FILE] [FILES...]

        Loads each bot file the way the runner does and reports every problem on standard
        error as 'file:line:column: message', sorted by position within each file: YAML
        syntax, unknown keys (with a suggestion), types, names, rates, durations, regexes,
        templates and every variable they read, unset ${VARIABLES}, examples that name
        unknown rules or http results, bots or accounts defined twice, and on a Matrix bot
        (platform: {matrix: …}, docs/matrix.md) the groups it joins, listens to or logs
        cases in that have no Matrix room, and moderators listed by account. The examples
        of a file without such problems are run, as the runner runs them before it takes
        a file: a failing example is a problem too, so that check says of a live folder
        what the runner did with it. Each good file is listed on standard output as
        'FILE: ok'; a summary line ends the report.

        FILES are bot files or folders of them (their *.yaml and *.yml files); without
        FILES, every bot file of the configuration's bots folder. The configuration file
        is checked too whenever it is read: with --config, or without FILES.
        ${VARIABLES} are read from the environment, as when the bots run.

        options:
        \(BotSelection.help)

        exit codes: 0 no problem, 2 problems found (or usage)
        """
    static let options: Set<String> = ["config"]
    static let flags: Set<String> = []

    var selection: BotSelection

    init(arguments: Arguments) throws {
        selection = BotSelection(configPath: arguments[option: "config"], paths: arguments.positionals)
    }

    func run() async throws -> Int32 {
        let loaded = await selection.load(environment: CommandContext.current.environment, runningExamples: true)
        for problem in loaded.generalProblems { printDiagnostic(problem) }
        for result in loaded.results {
            if result.problems.isEmpty {
                printOutput("\(result.file): ok" + (result.bot.map(Self.describe) ?? ""))
            } else {
                for problem in result.problems { printDiagnostic(problem) }
            }
        }
        let problems = loaded.problems.count
        printOutput(Self.counted(loaded.results.count, "file") + " checked, " + Self.counted(problems, "error"))
        return problems == 0 ? ExitCode.ok : ExitCode.usage
    }

    /// ` (bot 'helpdesk': 9 rules, 20 examples)`.
    private static func describe(_ bot: BotDefinition) -> String {
        let examples = bot.rules.reduce(0) { $0 + $1.examples.count }
        return " (bot '\(bot.name)': \(counted(bot.rules.count, "rule")), \(counted(examples, "example")))"
    }

    /// `1 file`, `3 files`.
    static func counted(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
}
