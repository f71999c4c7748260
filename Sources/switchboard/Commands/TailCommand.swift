/// `switchboard tail`.
struct TailCommand: Command {
    static let name = "tail"
    static let summary = "(not available yet)"
    static let help = "usage: switchboard tail"
    static let options: Set<String> = []
    static let flags: Set<String> = []

    init(arguments: Arguments) throws {}

    func run() async throws -> Int32 {
        printError("'tail' is not available in this build")
        return ExitCode.failure
    }
}
