/// `switchboard explain`.
struct ExplainCommand: Command {
    static let name = "explain"
    static let summary = "(not available yet)"
    static let help = "usage: switchboard explain"
    static let options: Set<String> = []
    static let flags: Set<String> = []

    init(arguments: Arguments) throws {}

    func run() async throws -> Int32 {
        printError("'explain' is not available in this build")
        return ExitCode.failure
    }
}
