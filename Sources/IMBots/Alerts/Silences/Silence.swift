import Foundation
import IMProtocol

/// One matcher of a silence, as Alertmanager's API v2 spells it.
public struct SilenceMatcher: Sendable, Hashable, Codable, CustomStringConvertible {
    public var name: String
    public var value: String
    public var isRegex: Bool
    /// False for `!=` and `!~`.
    public var isEqual: Bool

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

    /// Whether an alert with `labels` matches (equality matchers only; a regex matcher is
    /// Alertmanager's to evaluate and counts as a match here).
    public func matches(_ labels: [String: String]) -> Bool {
        if isRegex { return true }
        return (labels[name] ?? "") == value ? isEqual : !isEqual
    }
}

/// A silence to create: `POST /api/v2/silences`.
public struct SilenceRequest: Sendable, Hashable, Codable {
    public var matchers: [SilenceMatcher]
    public var startsAt: String
    public var endsAt: String
    public var createdBy: String
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
        public var state: String
    }

    public var id: String
    public var status: Status
    public var matchers: [SilenceMatcher]
    public var startsAt: String
    public var endsAt: String
    public var createdBy: String
    public var comment: String

    public var isActive: Bool { status.state == "active" }
}

/// The body of a created silence: `{"silenceID": "…"}`.
struct SilenceCreated: Decodable {
    var silenceID: String
}
