/// `switchboard test`.
struct TestCommand: Command {
    static let name = "test"
    static let summary = "(not available yet)"
    static let help = "usage: switchboard test"
    static let options: Set<String> = []
    static let flags: Set<String> = []

    init(arguments: Arguments) throws {}

    func run() async throws -> Int32 {
        printError("'test' is not available in this build")
        return ExitCode.failure
    }
}
