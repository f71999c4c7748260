/// What the input line understands besides text, as users of IRC clients type it:
/// `/join`, `/leave`, `/invite`, `/nick`, `/me` and the rest (`/help` lists them). An
/// unknown `/word` is asked about, never posted by mistake; `//` sends a literal slash.
public enum SlashCommand: Sendable, Equatable {
    case help
    /// `/me waves`: sent as the text `/me waves`, shown as "* alice waves".
    case me(String)
    /// `/join NAME`, `/join #group`, `/join &room`.
    case join(kind: JoinKind, name: String)
    /// `/leave`, `/part`: leave the open group or room (asks first).
    case leave
    /// `/invite USER`: into the open group.
    case invite(String)
    /// `/nick NAME`: this user's nickname.
    case nick(String)
    /// `/msg USER TEXT`: a direct message without leaving the conversation.
    case msg(user: String, text: String)
    /// `/query USER`: opens the direct conversation.
    case query(String)
    /// `/topic TEXT`: the open group's or room's description (shown without TEXT).
    case topic(String?)
    /// `/whois USER`: someone's profile in the status line.
    case whois(String)
    /// `/names`, `/who`: who is in the open group or room.
    case names
    /// `/kick USER [REASON]`, `/ban USER [REASON]`, `/unban USER`, `/mute USER [DURATION]`, `/unmute USER`.
    case moderate(action: String, user: String, argument: String?)
    /// `/block USER`, `/unblock USER` (blocking asks first).
    case block(String)
    case unblock(String)
    /// `/list [TEXT]`: the directory of groups anyone may join.
    case list(String?)
    /// `/create NAME`: the form that creates a group.
    case create(String?)
    /// `/close`: back to the list, keeping the draft.
    case close
    /// `/quit` (asks first).
    case quit
    /// A command missing what it needs: the usage to show.
    case usage(String)

    public enum JoinKind: Sendable, Equatable { case group, room }

    /// The commands `/help` lists, with what they do.
    public static let reference: [(String, String)] = [
        ("/join NAME", "join a group (#name) or enter a room (&name)"), ("/leave", "leave this group or room (asks first)"),
        ("/invite USER", "invite someone into this group"), ("/nick NAME", "change your nickname"),
        ("/me TEXT", "say what you do: * you TEXT"), ("/msg USER TEXT", "a direct message, staying here"),
        ("/query USER", "open the conversation with someone"), ("/topic [TEXT]", "show or set this group's description"),
        ("/whois USER", "someone's profile"), ("/names", "who is here"),
        ("/kick /ban /unban USER", "moderate (admins), with a reason after"), ("/mute USER [10m]", "mute, for a while or until /unmute"),
        ("/block /unblock USER", "refuse someone's messages"), ("/list [TEXT]", "groups anyone may join"),
        ("/create [NAME]", "create a group"), ("/close", "back to the list"), ("/quit", "quit (asks first)"),
        ("//text", "send text that starts with a slash"),
    ]

    /// What `line` is: nil for text to send (which includes `//…`, sent with one slash
    /// less, see `literal`), else the command; `.failure` with the word for an unknown one.
    public static func parse(_ line: String) -> Result<SlashCommand, UnknownCommand>? {
        guard line.hasPrefix("/"), !line.hasPrefix("//") else { return nil }
        let body = line.dropFirst()
        let word = String(body.prefix { !$0.isWhitespace }).lowercased()
        let rest = body.dropFirst(word.count).drop { $0 == " " || $0 == "\t" }
        let argument = rest.isEmpty ? nil : String(rest)
        let words = rest.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).map(String.init)
        func first(_ usage: String, _ make: (String) -> SlashCommand) -> SlashCommand {
            guard let name = words.first else { return .usage(usage) }
            return make(name)
        }
        let command: SlashCommand
        switch word {
        case "help", "?", "commands": command = .help
        case "me", "action": command = argument.map(SlashCommand.me) ?? .usage("/me TEXT")
        case "join", "j":
            command = first("/join NAME (#group or &room)") { name in
                if name.hasPrefix("&") { return .join(kind: .room, name: String(name.dropFirst())) }
                return .join(kind: .group, name: name.hasPrefix("#") ? String(name.dropFirst()) : name)
            }
        case "leave", "part": command = .leave
        case "invite": command = first("/invite USER", SlashCommand.invite)
        case "nick": command = argument.map { .nick($0.trimmingSpaces()) } ?? .usage("/nick NAME")
        case "msg", "m":
            guard let user = words.first else {
                command = .usage("/msg USER TEXT")
                break
            }
            let text = rest.dropFirst(user.count).drop { $0 == " " }
            command = text.isEmpty ? .usage("/msg \(user) TEXT") : .msg(user: user, text: String(text))
        case "query", "q": command = first("/query USER", SlashCommand.query)
        case "topic": command = .topic(argument)
        case "whois", "wi": command = first("/whois USER", SlashCommand.whois)
        case "names", "who": command = .names
        case "kick", "ban", "unban", "mute", "unmute":
            guard let user = words.first else {
                command = .usage("/\(word) USER")
                break
            }
            let more = rest.dropFirst(user.count).drop { $0 == " " }
            command = .moderate(action: word, user: user, argument: more.isEmpty ? nil : String(more))
        case "block", "ignore": command = first("/block USER", SlashCommand.block)
        case "unblock", "unignore": command = first("/unblock USER", SlashCommand.unblock)
        case "list", "directory": command = .list(argument)
        case "create": command = .create(words.first)
        case "close", "wc": command = .close
        case "quit", "exit": command = .quit
        default: return .failure(UnknownCommand(word: word))
        }
        return .success(command)
    }

    /// The text to send for `line` when it is not a command: `//x` sends `/x`.
    public static func literal(_ line: String) -> String {
        line.hasPrefix("//") ? String(line.dropFirst()) : line
    }

    /// An action message's text (`/me waves` → `waves`), or nil.
    public static func action(_ text: String) -> Substring? {
        guard text.hasPrefix("/me "), text.count > 4 else { return nil }
        return text.dropFirst(4)
    }
}

/// A `/word` the input line does not know.
public struct UnknownCommand: Error, Sendable, Equatable {
    public var word: String

    public init(word: String) { self.word = word }
}
