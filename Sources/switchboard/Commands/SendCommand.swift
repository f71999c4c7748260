/// `switchboard send`.
struct SendCommand: Command {
    static let name = "send"
    static let summary = "(not available yet)"
    static let help = "usage: switchboard send"
    static let options: Set<String> = []
    static let flags: Set<String> = []

    init(arguments: Arguments) throws {}

    func run() async throws -> Int32 {
        printError("'send' is not available in this build")
        return ExitCode.failure
    }
}
