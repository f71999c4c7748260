/// A chat command of the alert bridge, parsed from a message (a reply to an incident
/// message, for `/silence` and `/ack`).
public enum AlertCommand: Sendable, Hashable {
    /// `/silence 2h [reason]`: propose a silence of the replied-to incident's group.
    case silence(duration: Duration, reason: String?)
    /// `/confirm`: create the silence proposed last by the same user here.
    case confirm
    /// `/silences`: list the active silences.
    case silences
    /// `/unsilence ID`: expire one.
    case unsilence(id: String)
    /// `/ack`: mark the replied-to incident acknowledged.
    case ack

    /// Why a command was not understood: the reply to give, with its usage.
    public struct Invalid: Error, Sendable, Hashable, CustomStringConvertible {
        /// The reply: what is wrong and the usage.
        public let description: String
    }

    /// The longest silence `/silence` creates.
    public static let maximumSilence: Duration = .seconds(30 * 86_400)

    /// Parses `text`; nil when it is not one of these commands (so other rules see it),
    /// ``Invalid`` when it is one with bad arguments.
    public static func parse(_ text: String) throws(Invalid) -> AlertCommand? {
        guard let command = ParsedCommand.parse(text) else { return nil }
        let argv = command.argv
        switch command.name {
        case "silence":
            guard let first = argv.first else {
                throw Invalid(description: "usage: /silence DURATION [reason], e.g. /silence 2h deploying the fix")
            }
            guard let duration = parseDuration(first) else {
                throw Invalid(description: "'\(first.prefix(32))' is not a duration; use e.g. 30m, 2h, 1d or 1h30m")
            }
            guard duration >= .seconds(60), duration <= maximumSilence else {
                throw Invalid(description: "a silence lasts from 1m to 30d")
            }
            let reason = command.args.dropFirst(first.count).trimmedWhitespace
            return .silence(duration: duration, reason: reason.isEmpty ? nil : String(reason.prefix(500)))
        case "confirm":
            return .confirm
        case "silences":
            return .silences
        case "unsilence":
            guard argv.count == 1 else { throw Invalid(description: "usage: /unsilence ID (the id /silences shows)") }
            return .unsilence(id: argv[0])
        case "ack":
            return .ack
        default:
            return nil
        }
    }

    /// `90s`, `30m`, `2h`, `1d`, `1w` and sums like `1h30m`; nil otherwise.
    public static func parseDuration(_ text: String) -> Duration? {
        var total: Int64 = 0
        var number: Int64?
        for byte in text.lowercased().utf8 {
            if byte >= 48, byte <= 57 {
                let next = (number ?? 0) * 10 + Int64(byte - 48)
                guard next < 10_000_000 else { return nil }
                number = next
                continue
            }
            guard let value = number else { return nil }
            let unit: Int64
            switch byte {
            case UInt8(ascii: "s"): unit = 1
            case UInt8(ascii: "m"): unit = 60
            case UInt8(ascii: "h"): unit = 3600
            case UInt8(ascii: "d"): unit = 86_400
            case UInt8(ascii: "w"): unit = 604_800
            default: return nil
            }
            total += value * unit
            number = nil
        }
        guard number == nil, total > 0 else { return nil }
        return .seconds(total)
    }
}
