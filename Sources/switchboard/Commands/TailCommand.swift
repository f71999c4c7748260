import Foundation
import IMClient
import IMProtocol

/// `switchboard tail`: prints messages, replies and membership changes as they arrive.
struct TailCommand: Command {
    static let name = "tail"
    static let summary = "print new messages, replies, edits, deletions, joins and leaves as they arrive, until stopped"
    static let help = """
        usage: switchboard tail [--server URL] [--user NAME] [--ids] [ADDRESS]

        Prints each new message as 'time conversation sender: text' until SIGINT; a reply
        as 'time conversation sender (replying to bob: "what it answers"): text'; an edit
        as 'time conversation sender (edited, was "what it said"): new text'; a deletion
        as 'time conversation * alice deleted bob's message "what it said"'; members
        joining, leaving or removed as 'time conversation * alice joined the group'. With
        ADDRESS (user:NAME, group:NAME, room:NAME or an id) only that conversation's. Lost
        connections are retried; notices go to standard error.

        options:
          --ids              show each message's id ('group:oncall [12] alerts: …'), for
                             'switchboard send --reply-to ID', '--edit ID' and '--delete ID'
        \(ClientLogin.help)

        exit codes: 0 stopped, 1 the login ended (e.g. logged in elsewhere) or failed
        """
    static let options: Set<String> = ClientLogin.options
    static let flags: Set<String> = ["ids"]

    var login: ClientLogin
    var address: ConversationAddress?
    var showsIDs: Bool

    init(arguments: Arguments) throws {
        login = try ClientLogin(arguments: arguments)
        showsIDs = arguments.has("ids")
        guard arguments.positionals.count <= 1 else { throw UsageError(message: "give at most one ADDRESS") }
        if let text = arguments.positionals.first {
            guard let address = ConversationAddress(text) else {
                throw UsageError(message: "'\(text)' is not an address: use user:NAME, group:NAME, room:NAME or an id")
            }
            self.address = address
        }
    }

    func run() async throws -> Int32 {
        let client = try await login.connect()
        var filter: ConversationID?
        if let address {
            if case .id(let id) = address { filter = id } else { filter = try await client.conversation(address).id }
        }
        do {
            try await follow(client, filter: filter)
        } catch {
            guard error.code == .kickedOut else { throw error }
            printError(error.message)
            return ExitCode.failure
        }
        return ExitCode.ok
    }

    /// Prints events until the stream ends.
    private func follow(_ client: IMClient, filter: ConversationID?) async throws(IMClientError) {
            var lines = TailLines(showsIDs: showsIDs)
            for try await item in client.events(cursor: MemoryCursorStore()) {
                switch item {
                case .event(let event):
                    guard filter == nil || filter == event.conversation?.id, let line = lines.line(for: event) else {
                        continue
                    }
                    printOutput(line)
                case .unreadable(let unreadable):
                    printError("skipped an event this version cannot read (\(unreadable.type)): \(unreadable.reason)")
                case .resyncNeeded(let reason):
                    printError("re-synced: \(reason)")
                case .disconnected(let error, let retryIn):
                    printError("\(error.message); retrying in \(retryIn.components.seconds) s")
                case .reconnected:
                    printError("connected again")
                }
            }
    }
}
