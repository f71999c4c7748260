/// `command: ticket`: the text is the command `/ticket` (or one of several names) for
/// this bot, with arguments as the rule asks.
final class CommandCondition: Sendable {
    /// Whether the command must, may or must not have arguments.
    enum Arguments: String, Sendable, Hashable, CaseIterable, Decodable {
        case any, required, none
    }

    /// The accepted names, lowered, as written order for messages.
    let written: [String]
    /// The accepted names, for lookup.
    let names: Set<String>
    let arguments: Arguments

    init(names: [String], arguments: Arguments) {
        self.written = names
        self.names = Set(names)
        self.arguments = arguments
    }

    func matches(_ facts: inout EventFacts, _ bindings: inout Bindings) -> Bool {
        guard let command = facts.commandForBot, names.contains(command.name) else { return false }
        switch arguments {
        case .any: break
        case .required: guard !command.args.isEmpty else { return false }
        case .none: guard command.args.isEmpty else { return false }
        }
        bindings.args = command.args
        bindings.argv = command.argv
        return true
    }

    func failure(_ facts: inout EventFacts) -> String {
        guard facts.text != nil else { return "command: the event has no text" }
        guard let command = facts.command else {
            return "command: text is not a command, rule wants \(wanted)"
        }
        if let target = command.target, target != facts.botUsername {
            return "command: /\(command.name) is addressed to @\(target), not to this bot"
        }
        guard names.contains(command.name) else {
            return "command: text is the command /\(command.name), rule wants \(wanted)"
        }
        switch arguments {
        case .required where command.args.isEmpty:
            return "command: /\(command.name) has no arguments, rule requires some"
        case .none where !command.args.isEmpty:
            return "command: /\(command.name) has arguments, rule wants none"
        default:
            return "command: does not match"
        }
    }

    var summary: String {
        switch arguments {
        case .any: "text is the command \(wanted)"
        case .required: "text is the command \(wanted) with arguments"
        case .none: "text is the command \(wanted) without arguments"
        }
    }

    private var wanted: String {
        written.map { "/" + $0 }.joined(separator: " or ")
    }
}
