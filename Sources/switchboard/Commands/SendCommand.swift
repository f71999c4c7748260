import Foundation
import IMClient
import IMProtocol

/// `switchboard send`: one message from the command line, a reply, an edit or a deletion.
struct SendCommand: Command {
    static let name = "send"
    static let summary = "send a message (--to user:NAME, group:NAME or room:NAME), reply, edit or delete one"
    static let help = """
        usage: switchboard send [--server URL] [--user NAME] --to ADDRESS [--reply-to ID] TEXT...
               switchboard send [--server URL] [--user NAME] --to ADDRESS --edit ID TEXT...
               switchboard send [--server URL] [--user NAME] --to ADDRESS --delete ID

        Sends TEXT (the remaining words, joined by spaces; '-' reads standard input) to
        ADDRESS: user:NAME, group:NAME, room:NAME or a conversation id. A failed send is
        retried with the same message id, so it is never delivered twice.

        With --reply-to ID the message answers message ID of that conversation (what a
        bot's /silence and /ack need: `switchboard tail` shows each message's id). With
        --edit ID it replaces the text of your message ID instead (every member gets the
        edit); with --delete ID it deletes message ID for everyone (yours, or any member's
        in a group you administer).

        options:
          --to ADDRESS       the conversation
          --reply-to ID      send TEXT as a reply to message ID
          --edit ID          replace the text of your message ID with TEXT
          --delete ID        delete message ID (no TEXT)
        \(ClientLogin.help)

        exit codes: 0 done, 1 failure (server unreachable, refused), 2 usage
        """
    static let options: Set<String> = ClientLogin.options.union(["to", "reply-to", "edit", "delete"])
    static let flags: Set<String> = []

    /// What the command does to the conversation.
    enum Operation: Equatable {
        case send(replyTo: MessageID?)
        case edit(MessageID)
        case delete(MessageID)
    }

    var login: ClientLogin
    var address: ConversationAddress
    var operation: Operation
    var text: String

    init(arguments: Arguments) throws {
        login = try ClientLogin(arguments: arguments)
        guard let to = arguments[option: "to"] else { throw UsageError(message: "say where with --to ADDRESS") }
        guard let address = ConversationAddress(to) else {
            throw UsageError(message: "--to '\(to)' is not an address: use user:NAME, group:NAME, room:NAME or an id")
        }
        self.address = address
        let given = ["reply-to", "edit", "delete"].filter { arguments[option: $0] != nil }
        guard given.count <= 1 else {
            throw UsageError(message: "give one of --reply-to, --edit and --delete, not " + given.map { "--\($0)" }
                .joined(separator: " and "))
        }
        func id(_ option: String) throws -> MessageID? {
            guard let written = arguments[option: option] else { return nil }
            guard let number = Int64(written), number > 0 else {
                throw UsageError(message: "--\(option) '\(written)' is not a message id (a number; `switchboard tail` shows them)")
            }
            return MessageID(rawValue: number)
        }
        if let deleted = try id("delete") {
            operation = .delete(deleted)
        } else if let edited = try id("edit") {
            operation = .edit(edited)
        } else {
            operation = .send(replyTo: try id("reply-to"))
        }
        if arguments.positionals == ["-"] {
            text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
                .trimmingCharacters(in: .newlines)
        } else {
            text = arguments.positionals.joined(separator: " ")
        }
        if case .delete = operation {
            guard text.isEmpty else { throw UsageError(message: "--delete takes no text: leave it out") }
        } else {
            guard !text.isEmpty else { throw UsageError(message: "nothing to send: give the text after the options") }
        }
    }

    func run() async throws -> Int32 {
        let client = try await login.connect()
        switch operation {
        case .send(let replyTo):
            let message = try await client.send(text, to: address, replyTo: replyTo)
            printOutput("sent to \(address) (message \(message.id), #\(message.seq))"
                        + (replyTo.map { ", replying to message \($0)" } ?? ""))
        case .edit(let id):
            let message = try await client.editMessage(id, in: address, text: text)
            printOutput("edited message \(message.id) in \(address)")
        case .delete(let id):
            let message = try await client.deleteMessage(id, in: address)
            printOutput("deleted message \(message.id) in \(address)")
        }
        return ExitCode.ok
    }
}
