import IMProtocol

/// A send budget written for people: `1/s`, `20/min`, `100/h`, `500/d`, or a count
/// per duration such as `5/10s`.
public struct Rate: Sendable, Hashable, CustomStringConvertible {
    /// How many sends the budget allows per `period`.
    public var count: Int
    /// The length of the window the count applies to.
    public var period: ConfigDuration

    /// Creates a rate of `count` per `period`; the period must be longer than zero.
    public init(count: Int, per period: ConfigDuration) {
        self.count = count
        self.period = period
    }

    /// Parses `N/UNIT` (`s`, `sec`, `second`, `min`, `minute`, `h`, `hour`, `d`, `day`)
    /// or `N/DURATION`; nil when the text is not one of these or the count is not positive.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2,
              let count = Int(parts[0].trimmedWhitespace), count > 0 else { return nil }
        let unit = parts[1].trimmedWhitespace.lowercased()
        let seconds: Double
        switch unit {
        case "s", "sec", "second": seconds = 1
        case "m", "min", "minute": seconds = 60
        case "h", "hour": seconds = 3600
        case "d", "day": seconds = 86400
        default:
            guard let duration = ConfigDuration(unit), duration.seconds > 0 else { return nil }
            seconds = duration.seconds
        }
        self.init(count: count, per: ConfigDuration(seconds: seconds))
    }

    /// The sustained number of sends per second.
    public var perSecond: Double { Double(count) / period.seconds }

    /// `20/min`, `1/s`, `5/10s`.
    public var description: String {
        switch period.seconds {
        case 1: "\(count)/s"
        case 60: "\(count)/min"
        case 3600: "\(count)/h"
        case 86400: "\(count)/d"
        default: "\(count)/\(period)"
        }
    }
}

extension Rate: Decodable {
    /// Decodes the text form; a bad one is reported with an example of a good one.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.decodeValue(String.self)
        guard let rate = Rate(text) else {
            throw decoder.botDecoding.failure(
                .invalidValue,
                "'\(text)' is not a rate (write COUNT/UNIT, e.g. 1/s, 20/min, 100/h, or 5/10s)",
                at: decoder.mark, path: decoder.codingPath)
        }
        self = rate
    }
}
