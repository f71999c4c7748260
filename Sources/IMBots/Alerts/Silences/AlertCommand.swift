/// A chat command of the alert bridge, parsed from a message (a reply to an incident
/// message, for `/silence` and `/ack`).
public enum AlertCommand: Sendable, Hashable {
    /// `/silence 2h [name=value …] [reason]`: propose a silence of the replied-to
    /// incident's group, narrowed by the matchers given (`=`, `!=`, `=~`, `!~`).
    case silence(duration: Duration, matchers: [SilenceMatcher], reason: String?)
    /// `/confirm`: create the silence proposed last by the same user here.
    case confirm
    /// `/silences`: list the active silences.
    case silences
    /// `/unsilence ID`: expire one.
    case unsilence(id: String)
    /// `/ack`: mark the replied-to incident acknowledged.
    case ack
    /// `/refresh`: ask Alertmanager about the replied-to incident, or every open one of the
    /// conversation, now.
    case refresh
    /// `/resolve`: close the replied-to incident by hand.
    case resolve

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
                throw Invalid(description: "usage: /silence DURATION [name=value …] [reason], e.g. /silence 2h "
                              + "instance=api-2 deploying the fix")
            }
            guard let duration = parseDuration(first) else {
                throw Invalid(description: "'\(first.prefix(32))' is not a duration; use e.g. 30m, 2h, 1d or 1h30m")
            }
            guard duration >= .seconds(60), duration <= maximumSilence else {
                throw Invalid(description: "a silence lasts from 1m to 30d")
            }
            var rest = Substring(command.args.dropFirst(first.count))
            var matchers: [SilenceMatcher] = []
            while let (matcher, after) = try Self.matcher(at: rest) {
                matchers.append(matcher)
                rest = after
            }
            guard matchers.count <= 16 else { throw Invalid(description: "a silence takes at most 16 matchers") }
            let reason = String(rest).trimmedWhitespace
            return .silence(duration: duration, matchers: matchers, reason: reason.isEmpty ? nil : String(reason.prefix(500)))
        case "confirm":
            return .confirm
        case "silences":
            return .silences
        case "unsilence":
            guard argv.count == 1 else { throw Invalid(description: "usage: /unsilence ID (the id /silences shows)") }
            return .unsilence(id: argv[0])
        case "ack":
            return .ack
        case "refresh":
            return .refresh
        case "resolve":
            return .resolve
        default:
            return nil
        }
    }

    /// The matcher the text starts with (after blanks) and the text after it; nil when it
    /// does not start with one (the reason begins there). `name=value`, `name!=value`,
    /// `name=~regex`, `name!~regex`; a value with blanks is written in double quotes.
    static func matcher(at text: Substring) throws(Invalid) -> (SilenceMatcher, Substring)? {
        let start = text.drop { $0 == " " || $0 == "\t" }
        let name = start.prefix { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
        guard let first = name.first, !first.isNumber, name.count < start.count else { return nil }
        var rest = start.dropFirst(name.count)
        let op: String
        if rest.hasPrefix("!=") || rest.hasPrefix("=~") || rest.hasPrefix("!~") {
            op = String(rest.prefix(2))
        } else if rest.hasPrefix("=") {
            op = "="
        } else {
            return nil
        }
        rest = rest.dropFirst(op.count)
        var value = ""
        if rest.first == "\"" {
            var escaped = false
            var closed = false
            rest = rest.dropFirst()
            while let character = rest.first {
                rest = rest.dropFirst()
                if escaped {
                    value.append(character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    closed = true
                    break
                } else {
                    value.append(character)
                }
            }
            guard closed else { throw Invalid(description: "the value of matcher '\(name)' opens a quote it never closes") }
        } else {
            value = String(rest.prefix { $0 != " " && $0 != "\t" })
            rest = rest.dropFirst(value.count)
        }
        guard value.count <= 1024 else { throw Invalid(description: "the value of matcher '\(name)' is too long") }
        if op.hasSuffix("~"), (try? PCRE2Pattern("^(?:" + value + ")$", caseless: false)) == nil {
            throw Invalid(description: "the regex of matcher '\(name)' ('\(value.prefix(64))') does not compile")
        }
        return (SilenceMatcher(name: String(name), value: value, isRegex: op.hasSuffix("~"), isEqual: !op.hasPrefix("!")),
                rest)
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
