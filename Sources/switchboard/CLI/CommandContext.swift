import Foundation
import IMChat
import IMClient

/// Where a command's text goes: standard output, standard error, or a test's buffer.
protocol TextSink: Sendable {
    /// Writes `text` as it is; the caller adds the line ends.
    func write(_ text: String)
}

/// Writes to a file handle at once, unbuffered, so that output and errors keep their
/// order on a terminal. A write that fails (a closed pipe, a full disk) is dropped: the
/// throwing `write(contentsOf:)`, not `write(_:)`, which traps.
struct FileHandleSink: TextSink {
    let handle: FileHandle

    func write(_ text: String) {
        try? handle.write(contentsOf: Data(text.utf8))
    }
}

/// What a command deals with besides its arguments: environment variables, standard
/// output and error, the terminal (for passwords) and the network.
///
/// Commands read `CommandContext.current`, which is the process's own unless a caller
/// binds another with `CommandContext.$current.withValue(_:operation:)`; tests do, to
/// capture what a command prints and to give each run its own `SWITCHBOARD_HOME`.
struct CommandContext: Sendable {
    /// The environment variables (`SWITCHBOARD_HOME`, passwords, `${VAR}` in bot files).
    var environment: [String: String]
    /// Standard output.
    var output: any TextSink
    /// Standard error.
    var errors: any TextSink
    /// Asks for a secret at the terminal without echo; nil when there is no terminal.
    var askSecret: @Sendable (_ prompt: String) -> String?
    /// How client commands reach the server.
    var transport: any HTTPTransport
    /// Timeouts, retries and the clock of the clients that commands create.
    var client: IMClient.Configuration

    /// The context commands run in.
    @TaskLocal static var current = CommandContext.process

    /// The process's environment, standard streams, terminal and network.
    static var process: CommandContext {
        CommandContext(environment: ProcessInfo.processInfo.environment,
                       output: FileHandleSink(handle: .standardOutput),
                       errors: FileHandleSink(handle: .standardError),
                       askSecret: { Secrets.readWithoutEcho($0) },
                       transport: IMClient.sharedTransport,
                       client: IMClient.Configuration())
    }

    /// A profile store under `$SWITCHBOARD_HOME` of this context.
    var profileStore: ProfileStore { ProfileStore(environment: environment) }
}

/// Writes a line to standard output.
///
/// Every line a command prints passes `TerminalText.sanitize` here (newlines and tabs
/// kept): a message, nickname or description holding a carriage return, an escape
/// sequence or a bidi override cannot draw a line that seems to come from someone else.
func printOutput(_ line: String) {
    CommandContext.current.output.write(terminalLine(line))
}

/// Writes `switchboard: <message>` to standard error.
func printError(_ message: String) {
    CommandContext.current.errors.write(terminalLine("switchboard: \(message)"))
}

/// Writes a line to standard error as it is: for `file:line:column: message` reports,
/// which editors recognise only at the start of a line.
func printDiagnostic(_ line: String) {
    CommandContext.current.errors.write(terminalLine(line))
}

/// `line` made safe for a terminal, with its line end: the line writer's one seam.
func terminalLine(_ line: String) -> String {
    TerminalText.sanitize(line, keeping: [.newlines, .tabs]) + "\n"
}
