/// `switchboard user`.
struct UserCommand: Command {
    static let name = "user"
    static let summary = "(not available yet)"
    static let help = "usage: switchboard user"
    static let options: Set<String> = []
    static let flags: Set<String> = []

    init(arguments: Arguments) throws {}

    func run() async throws -> Int32 {
        printError("'user' is not available in this build")
        return ExitCode.failure
    }
}
