import Foundation
import IMChat
import IMClient
import IMProtocol

/// `switchboard chat`: the terminal client.
struct ChatCommand: Command {
    static let name = "chat"
    static let summary = "the terminal client: log in, sessions, contacts, profile, conversations"
    static let help = """
        usage: switchboard chat [--server URL] [--device NAME] [--mouse] [--bell] [--title]

        The six screens of the app in the terminal: Login (the last username used here
        is filled in), Register, Sessions, Contacts (with + to add a contact, create,
        browse or join a group, create or enter a room), Profile and the Dialogue of a
        conversation. F1 shows the keys of each screen, /help the commands of the input
        line; Ctrl-C asks before it quits (twice quits).

        The login is kept under SWITCHBOARD_HOME (readable by you only) until Log out, so
        the next start needs no password. Each home is its own device, and each terminal
        running at once in one home its own login: other terminals and machines of the
        account stay logged in; a new login of the same device ends the older one.

        options:
          --server URL   the server (default $SWITCHBOARD_SERVER, else http://127.0.0.1:8080)
          --device NAME  the device name of the login (default: one made for this home,
                         chat-<random>@<host>, and -2, -3… for more terminals at once)
          --mouse        scroll with the mouse wheel (the terminal's own text selection
                         then needs Shift held)
          --bell         ring the terminal's bell for a message that arrives out of sight
          --title        show the unread count in the terminal's title

        environment:
          SWITCHBOARD_HOME     where the last username, logins, profiles and avatars are
                               kept (default ~/.local/share/switchboard)
          SWITCHBOARD_GRAPHICS kitty, sixel or none: how avatars are drawn (default: kitty
                               in kitty, WezTerm and Ghostty, sixel where the terminal
                               says it draws sixel, else initials)
          SWITCHBOARD_WIDTHS   column widths for characters your terminal draws
                               differently, e.g. 1F1E6-1F1FF=1,2605=2 (hex code points
                               or ranges, or one character, =1 or =2)

        exit codes: 0 quit, 1 failure, 2 usage error or not a terminal
        """
    static let options: Set<String> = ["server", "device"]
    static let flags: Set<String> = ["mouse", "bell", "title"]

    var configuration: ChatConfiguration
    /// The device name given with `--device`.
    var device: String?

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
        if let name = arguments[option: "device"] {
            let allowed = name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.@:".contains($0)) }
            guard (1...60).contains(name.count), allowed else {
                throw UsageError(message: "--device '\(name)' must be 1 to 60 letters, digits or - _ . @ :")
            }
            device = name
        }
        configuration = ChatConfiguration(
            server: server, transport: context.transport, client: context.client,
            profileStore: context.profileStore, widths: widths, mouse: arguments.has("mouse"),
            bell: arguments.has("bell"), title: arguments.has("title"),
            graphics: TerminalGraphics.fromEnvironment(context.environment))
    }

    func run() async throws -> Int32 {
        var configuration = self.configuration
        // This terminal's place in the home: the first one keeps the home's device and
        // login; one started beside it gets its own, so neither ends the other.
        let slot = try configuration.profileStore.claimSlot("chat")
        let suffix = slot.number == 1 ? "" : "-\(slot.number)"
        configuration.loginSlot = "chat" + suffix
        configuration.device = try device.map { $0 + suffix } ?? configuration.profileStore.deviceName(prefix: "chat") + suffix
        do {
            try await ChatApp(configuration: configuration).run()
        } catch let error as TerminalError {
            printError(error.description)
            return ExitCode.usage
        }
        withExtendedLifetime(slot) {}
        return ExitCode.ok
    }
}
