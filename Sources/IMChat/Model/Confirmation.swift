import IMProtocol

/// A question in front of everything before something that cannot be undone at once:
/// `y` goes ahead, any other key (Esc) keeps things as they are. No single key blocks
/// someone, removes a contact, leaves a group or quits.
public enum Confirmation: Sendable, Equatable {
    case quit
    case logout
    case block(String)
    case removeContact(String)
    case leave(ConversationKind, String)
    /// A `/word` that is no command: send the line as a message after all?
    case unknownCommand(word: String, line: String)
    /// A message longer than the server takes: send it as `parts` messages?
    case split(text: String, parts: Int)

    /// The question, with its keys.
    public var question: String {
        switch self {
        case .quit: "Quit switchboard chat? y quits (so does Ctrl-C again) · any other key stays"
        case .logout: "Log out? This machine forgets the login. y logs out · any other key stays"
        case .block(let name): "Block \(name)? Their messages to you will be refused. y blocks · any other key keeps them"
        case .removeContact(let name): "Remove \(name) from your contacts? y removes · any other key keeps them"
        case .leave(let kind, let name):
            "Leave \(kind == .room ? "the room &" : "the group #")\(name)? y leaves · any other key stays"
        case .unknownCommand(let word, _):
            "/\(word) is not a command (/help lists them). y sends the line as a message · any other key edits it (// sends a slash)"
        case .split(let text, let parts):
            "\(Plural.count(text.count, "character")): a message holds \(Limits.messageTextLength.upperBound.grouped). y sends it as \(parts) messages · any other key edits it"
        }
    }
}

/// Counts with the right noun: "1 member", "2 members", "1,024 characters".
public enum Plural {
    /// `count` and `noun`, with an "s" unless the count is one (or the plural given).
    public static func count(_ count: Int, _ noun: String, plural: String? = nil) -> String {
        "\(count.grouped) \(count == 1 ? noun : plural ?? noun + "s")"
    }
}

extension Int {
    /// With thousands separated by commas: `4,096`.
    var grouped: String {
        let digits = String(magnitude)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return (self < 0 ? "-" : "") + result
    }
}
