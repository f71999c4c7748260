#if canImport(Glibc)
import Glibc
#endif
import Foundation
import YAMLCoding

/// The `switchboard` command line: picks the subcommand, parses its arguments, runs it,
/// and turns errors into messages and exit codes.
enum CLI {
    static let version = "0.1.0"

    static let commands: [any Command.Type] = [
        UpCommand.self, ServeCommand.self, RunCommand.self, CheckCommand.self, TestCommand.self,
        ExplainCommand.self, ChatCommand.self, SendCommand.self, TailCommand.self, UserCommand.self,
        GroupCommand.self, BackupCommand.self, RestoreCommand.self, MigrateCommand.self,
    ]

    static var usage: String {
        var text = """
            switchboard \(version): a self-hosted IM server with a YAML bot gateway

            usage: switchboard <command> [options]

            commands:

            """
        for command in commands {
            text += "  \(command.name.padding(toLength: 9, withPad: " ", startingAt: 0)) \(command.summary)\n"
        }
        text += "\nRun 'switchboard <command> --help' for a command's options.\n"
        text += "Exit codes: 0 ok, 1 failure, 2 usage or configuration error.\n"
        return text
    }

    static func main(_ argv: [String]) async -> Int32 {
        guard let first = argv.first, first != "--help", first != "-h", first != "help" else {
            CommandContext.current.output.write(usage)
            return argv.isEmpty ? ExitCode.usage : ExitCode.ok
        }
        if first == "--version" {
            printOutput("switchboard \(version)")
            return ExitCode.ok
        }
        guard let type = commands.first(where: { $0.name == first }) else {
            let suggestion = Suggestion.closest(to: first, among: commands.map { $0.name }).map { " (did you mean '\($0)'?)" } ?? ""
            printError("unknown command '\(first)'\(suggestion); run 'switchboard --help'")
            return ExitCode.usage
        }
        let rest = Array(argv.dropFirst())
        // After `--` every word is an argument, so that a text such as "-h" can be given.
        if rest.prefix(while: { $0 != "--" }).contains(where: { $0 == "--help" || $0 == "-h" }) {
            printOutput(type.help)
            return ExitCode.ok
        }
        do {
            let arguments = try Arguments.parse(rest, options: type.options, flags: type.flags)
            let command = try type.init(arguments: arguments)
            if type.watchesShutdownSignals { return try await command.run() }
            return try await Signals.runCancellable { try await command.run() }
        } catch let error as UsageError {
            printError("\(error.message)\nrun 'switchboard \(type.name) --help' for usage")
            return ExitCode.usage
        } catch let error as ConfigurationError {
            printError(error.description)
            return ExitCode.usage
        } catch is CancellationError {
            return ExitCode.failure
        } catch {
            printError(String(describing: error))
            return ExitCode.failure
        }
    }
}

/// A problem with configuration (a file, a flag's value, the data folder, a busy port):
/// exit code 2.
struct ConfigurationError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
