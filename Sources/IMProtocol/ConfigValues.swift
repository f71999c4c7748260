/// A length of time written for people: `500ms`, `30s`, `10m`, `24h`, `7d`, or a bare
/// number of seconds. Used by configuration files.
public struct ConfigDuration: Hashable, Sendable, Codable, CustomStringConvertible {
    public var seconds: Double

    public init(seconds: Double) { self.seconds = seconds }

    /// The longest duration accepted: 100 years, far beyond any timeout or retention,
    /// and small enough to compute with in whole milliseconds.
    public static let maximumSeconds: Double = 100 * 365 * 86400

    /// Parses the text form; nil when it is not one.
    public init?(_ text: String) {
        let trimmed = text.trimmingSpaces()
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400), ("w", 604_800)]
        for (suffix, scale) in units where trimmed.hasSuffix(suffix) {
            // "ms" must not be read as "m" + "s": only accept a pure number before the unit.
            if let value = Self.number(trimmed.dropLast(suffix.count)), value * scale <= Self.maximumSeconds {
                // Dividing keeps `700ms` exactly 0.7 s (700 × 0.001 is not).
                self.seconds = suffix == "ms" ? value / 1000 : value * scale
                return
            }
        }
        guard let value = Self.number(trimmed[...]), value <= Self.maximumSeconds else { return nil }
        self.seconds = value
    }

    /// A plain decimal number (`30`, `1.5`): no sign, exponent, hexadecimal or `inf`.
    private static func number(_ text: Substring) -> Double? {
        var dots = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: ".") {
                dots += 1
            } else if !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                return nil
            }
        }
        guard dots <= 1, text.utf8.contains(where: { $0 != UInt8(ascii: ".") }) else { return nil }
        return Double(text)
    }

    public var description: String {
        if seconds >= 86400, seconds.truncatingRemainder(dividingBy: 86400) == 0 { return "\(Int(seconds / 86400))d" }
        if seconds >= 3600, seconds.truncatingRemainder(dividingBy: 3600) == 0 { return "\(Int(seconds / 3600))h" }
        if seconds >= 60, seconds.truncatingRemainder(dividingBy: 60) == 0 { return "\(Int(seconds / 60))m" }
        if seconds < 1 {
            // To the microsecond, so that 0.4 ms does not read back as 0.
            let milliseconds = (seconds * 1_000_000).rounded() / 1000
            return milliseconds == milliseconds.rounded() ? "\(Int(milliseconds))ms" : "\(milliseconds)ms"
        }
        return seconds == seconds.rounded() ? "\(Int(seconds))s" : "\(seconds)s"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Double.self), number >= 0, number <= Self.maximumSeconds {
            self.seconds = number
            return
        }
        let text = try container.decode(String.self)
        guard let parsed = ConfigDuration(text) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "'\(text)' is not a duration (write e.g. 500ms, 30s, 10m, 24h or 7d; at most 100 years)")
        }
        self = parsed
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// `host:port` as written in configuration and on the command line (`[::1]:8080` for IPv6).
public struct ListenAddress: Hashable, Sendable, Codable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    public init?(_ text: String) {
        let host: Substring
        let port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            port = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        }
        // A host is an address or a name: printable ASCII. A bracket inside it, or a
        // combining mark that joins a bracket into one Character, would print as an
        // address that reads back differently.
        let printable = host.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 0x20 && $0.value < 0x7F && $0 != "[" && $0 != "]" }
        guard !host.isEmpty, printable, let number = Int(port), (0...65535).contains(number) else { return nil }
        self.host = String(host)
        self.port = number
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let parsed = ListenAddress(text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "'\(text)' is not HOST:PORT (e.g. 127.0.0.1:8080)")
        }
        self = parsed
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension String {
    func trimmingSpaces() -> String {
        var slice = Substring(self)
        while slice.first?.isWhitespace == true { slice.removeFirst() }
        while slice.last?.isWhitespace == true { slice.removeLast() }
        return String(slice)
    }
}
