/// `switchboard run`.
struct RunCommand: Command {
    static let name = "run"
    static let summary = "(not available yet)"
    static let help = "usage: switchboard run"
    static let options: Set<String> = []
    static let flags: Set<String> = []

    init(arguments: Arguments) throws {}

    func run() async throws -> Int32 {
        printError("'run' is not available in this build")
        return ExitCode.failure
    }
}
