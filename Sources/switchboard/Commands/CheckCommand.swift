/// `switchboard check`.
struct CheckCommand: Command {
    static let name = "check"
    static let summary = "(not available yet)"
    static let help = "usage: switchboard check"
    static let options: Set<String> = []
    static let flags: Set<String> = []

    init(arguments: Arguments) throws {}

    func run() async throws -> Int32 {
        printError("'check' is not available in this build")
        return ExitCode.failure
    }
}
