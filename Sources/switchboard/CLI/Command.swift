/// One subcommand of `switchboard`.
protocol Command: Sendable {
    /// The word after `switchboard`.
    static var name: String { get }
    /// One line for the command list.
    static var summary: String { get }
    /// The full `--help` text.
    static var help: String { get }
    static var options: Set<String> { get }
    static var flags: Set<String> { get }

    /// Whether the command watches SIGINT and SIGTERM itself (it runs a `ServiceGroup`);
    /// otherwise the first of them cancels it.
    static var watchesShutdownSignals: Bool { get }

    init(arguments: Arguments) throws
    /// Does the work; returns the exit code (0 ok, 1 failure, 2 usage or config error).
    func run() async throws -> Int32
}

extension Command {
    static var watchesShutdownSignals: Bool { false }
}

/// Exit codes shared by every command.
enum ExitCode {
    static let ok: Int32 = 0
    static let failure: Int32 = 1
    static let usage: Int32 = 2
}
