import Foundation
import IMChat
import IMClient

/// `switchboard chat`: the terminal client.
struct ChatCommand: Command {
    static let name = "chat"
    static let summary = "the terminal client: log in, sessions, contacts, profile, conversations"
    static let help = """
        usage: switchboard chat [--server URL] [--mouse]

        The six screens of the app in the terminal: Login (the last username used here
        is filled in), Register, Sessions, Contacts (with + to add a contact, create or
        join a group, create or enter a room), Profile and the Dialogue of a
        conversation. F1 shows the keys of each screen; Ctrl-C quits.

        options:
          --server URL   the server (default $SWITCHBOARD_SERVER, else http://127.0.0.1:8080)
          --mouse        scroll with the mouse wheel (the terminal's own text selection
                         then needs Shift held)

        environment:
          SWITCHBOARD_HOME     where the last username, profiles and avatars are kept
                               (default ~/.local/share/switchboard)
          SWITCHBOARD_WIDTHS   column widths for characters your terminal draws
                               differently, e.g. 1F1E6-1F1FF=1,2605=2 (hex code points
                               or ranges, or one character, =1 or =2)

        exit codes: 0 quit, 1 failure, 2 usage error or not a terminal
        """
    static let options: Set<String> = ["server"]
    static let flags: Set<String> = ["mouse"]

    var configuration: ChatConfiguration

    init(arguments: Arguments) throws {
        guard arguments.positionals.isEmpty else {
            throw UsageError(message: "chat takes no arguments, only options")
        }
        let context = CommandContext.current
        var server = arguments[option: "server"] ?? context.environment["SWITCHBOARD_SERVER"] ?? "http://127.0.0.1:8080"
        while server.hasSuffix("/") { server.removeLast() }
        guard server.hasPrefix("http://") || server.hasPrefix("https://") else {
            throw UsageError(message: "--server '\(server)' is not an http(s) URL")
        }
        var widths = WidthTable.standard
        if let text = context.environment["SWITCHBOARD_WIDTHS"], !text.isEmpty {
            do {
                widths = WidthTable(overrides: try WidthTable.parseOverrides(text))
            } catch {
                throw UsageError(message: "SWITCHBOARD_WIDTHS: \(error.description)")
            }
        }
        configuration = ChatConfiguration(
            server: server, transport: context.transport, client: context.client,
            profileStore: context.profileStore, widths: widths, mouse: arguments.has("mouse"))
    }

    func run() async throws -> Int32 {
        do {
            try await ChatApp(configuration: configuration).run()
        } catch let error as TerminalError {
            printError(error.description)
            return ExitCode.usage
        }
        return ExitCode.ok
    }
}
