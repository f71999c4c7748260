import Foundation
import IMClient
import IMProtocol

/// `switchboard send`: one message from the command line.
struct SendCommand: Command {
    static let name = "send"
    static let summary = "send a message (--to user:NAME, group:NAME or room:NAME)"
    static let help = """
        usage: switchboard send [--server URL] [--user NAME] --to ADDRESS TEXT...

        Sends TEXT (the remaining words, joined by spaces; '-' reads standard input) to
        ADDRESS: user:NAME, group:NAME, room:NAME or a conversation id. A failed send is
        retried with the same message id, so it is never delivered twice.

        options:
          --to ADDRESS       where to send
        \(ClientLogin.help)

        exit codes: 0 sent, 1 failure (server unreachable, refused), 2 usage
        """
    static let options: Set<String> = ClientLogin.options.union(["to"])
    static let flags: Set<String> = []

    var login: ClientLogin
    var address: ConversationAddress
    var text: String

    init(arguments: Arguments) throws {
        login = try ClientLogin(arguments: arguments)
        guard let to = arguments[option: "to"] else { throw UsageError(message: "say where with --to ADDRESS") }
        guard let address = ConversationAddress(to) else {
            throw UsageError(message: "--to '\(to)' is not an address: use user:NAME, group:NAME, room:NAME or an id")
        }
        self.address = address
        if arguments.positionals == ["-"] {
            text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
                .trimmingCharacters(in: .newlines)
        } else {
            text = arguments.positionals.joined(separator: " ")
        }
        guard !text.isEmpty else { throw UsageError(message: "nothing to send: give the text after the options") }
    }

    func run() async throws -> Int32 {
        let client = try await login.connect()
        let message = try await client.send(text, to: address)
        printOutput("sent to \(address) (message \(message.id), #\(message.seq))")
        return ExitCode.ok
    }
}
