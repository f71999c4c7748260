/// `switchboard up`.
struct UpCommand: Command {
    static let name = "up"
    static let summary = "(not available yet)"
    static let help = "usage: switchboard up"
    static let options: Set<String> = []
    static let flags: Set<String> = []

    init(arguments: Arguments) throws {}

    func run() async throws -> Int32 {
        printError("'up' is not available in this build")
        return ExitCode.failure
    }
}
