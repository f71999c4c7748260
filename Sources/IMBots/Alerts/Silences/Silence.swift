import Foundation
import IMProtocol

/// One matcher of a silence, as Alertmanager's API v2 spells it.
public struct SilenceMatcher: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The label name.
    public var name: String
    /// The value, or the pattern when ``isRegex``.
    public var value: String
    /// Whether ``value`` is a regular expression (`=~`).
    public var isRegex: Bool
    /// False for `!=` and `!~`.
    public var isEqual: Bool

    /// An equality matcher unless told otherwise.
    public init(name: String, value: String, isRegex: Bool = false, isEqual: Bool = true) {
        self.name = name
        self.value = value
        self.isRegex = isRegex
        self.isEqual = isEqual
    }

    /// `name="value"`, with `=~`, `!=` or `!~` as the matcher says.
    public var description: String {
        let op = isRegex ? (isEqual ? "=~" : "!~") : (isEqual ? "=" : "!=")
        let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return "\(name)\(op)\"\(escaped)\""
    }

    /// Whether an alert with `labels` matches, as Alertmanager judges it: a missing label
    /// is empty, and a regex matches the whole value (anchored, as `=~` is).
    public func matches(_ labels: [String: String]) -> Bool {
        let label = labels[name] ?? ""
        guard isRegex else { return (label == value) == isEqual }
        guard let pattern = try? PCRE2Pattern("^(?:" + value + ")$", caseless: false) else { return false }
        if case .match = pattern.firstMatch(in: Array(label.utf8)) { return isEqual }
        return !isEqual
    }
}

/// A silence to create: `POST /api/v2/silences`.
public struct SilenceRequest: Sendable, Hashable, Codable {
    /// What the silence mutes: alerts matching all of these.
    public var matchers: [SilenceMatcher]
    /// RFC 3339 start.
    public var startsAt: String
    /// RFC 3339 end.
    public var endsAt: String
    /// Who created it (the chat user).
    public var createdBy: String
    /// Why (the `/silence` reason).
    public var comment: String

    /// A silence from `start` for `duration`.
    public init(matchers: [SilenceMatcher], start: Timestamp, duration: Duration, createdBy: String, comment: String) {
        self.matchers = matchers
        self.startsAt = start.rfc3339
        self.endsAt = start.adding(seconds: Double(duration.components.seconds)).rfc3339
        self.createdBy = createdBy
        self.comment = comment
    }
}

/// A silence as Alertmanager reports it: `GET /api/v2/silences`.
public struct Silence: Sendable, Hashable, Codable {
    /// `active`, `pending` or `expired`.
    public struct Status: Sendable, Hashable, Codable {
        /// The state name.
        public var state: String
    }

    /// Alertmanager's id of the silence.
    public var id: String
    /// Whether it is active.
    public var status: Status
    /// What the silence mutes: alerts matching all of these.
    public var matchers: [SilenceMatcher]
    /// RFC 3339 start.
    public var startsAt: String
    /// RFC 3339 end.
    public var endsAt: String
    /// Who created it (the chat user).
    public var createdBy: String
    /// Why (the `/silence` reason).
    public var comment: String

    /// Whether it mutes alerts now.
    public var isActive: Bool { status.state == "active" }
}

/// The body of a created silence: `{"silenceID": "…"}`.
struct SilenceCreated: Decodable {
    var silenceID: String
}
