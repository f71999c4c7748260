/// Whether a group's newcomers may post at once.
public enum NewMemberPolicy: String, Sendable, Hashable, CaseIterable, Codable {
    /// Newcomers post at once (the default).
    case full
    /// Newcomers wait until an admin (or a bot) lets them post: `unmute` does.
    case restricted

    public init(from decoder: any Decoder) throws {
        self = try decodeSetting(decoder, "new_members")
    }
}

/// Who may change a group's title, logo and description.
public enum InfoEditors: String, Sendable, Hashable, CaseIterable, Codable {
    /// Its owner and admins (the default).
    case admins
    /// Any member.
    case members

    public init(from decoder: any Decoder) throws {
        self = try decodeSetting(decoder, "info_editable_by")
    }
}

/// A setting's value from its name, or an error listing the values there are.
private func decodeSetting<Setting: RawRepresentable & CaseIterable>(_ decoder: any Decoder, _ name: String) throws
    -> Setting where Setting.RawValue == String
{
    let container = try decoder.singleValueContainer()
    let text = try container.decode(String.self)
    guard let value = Setting(rawValue: text) else {
        let known = Setting.allCases.map(\.rawValue).joined(separator: " or ")
        throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not a value of \(name): use \(known)")
    }
    return value
}

/// The settings of a group, each optional: in `POST /v1/groups` the ones not given take
/// their defaults; in `PATCH /v1/groups/<name>` only the ones given change. Owners and
/// admins (and server administrators) change them. On the wire they are fields of the
/// request itself (`join`, `new_members`, `slow_mode`, `info_editable_by`).
public struct GroupSettings: Sendable, Hashable {
    /// Who may join: `invite` (the default), `approval` or `open`.
    public var join: JoinPolicy?
    /// Whether newcomers may post at once: `full` (the default) or `restricted`.
    public var newMembers: NewMemberPolicy?
    /// How long a member waits between posts (owner and admins do not); `0` turns it off
    /// (the default); whole seconds, at most a day.
    public var slowMode: ConfigDuration?
    /// Who may change title, logo and description: `admins` (the default) or `members`.
    public var infoEditableBy: InfoEditors?

    public init(
        join: JoinPolicy? = nil, newMembers: NewMemberPolicy? = nil, slowMode: ConfigDuration? = nil,
        infoEditableBy: InfoEditors? = nil
    ) {
        self.join = join
        self.newMembers = newMembers
        self.slowMode = slowMode
        self.infoEditableBy = infoEditableBy
    }

    /// True when no setting is given.
    public var isEmpty: Bool { join == nil && newMembers == nil && slowMode == nil && infoEditableBy == nil }

    /// The longest slow mode, in seconds.
    public static let slowModeLimit = 86_400

    /// Slow mode in whole seconds, checked: 0 (off) to a day; nil when not given.
    public func slowModeSeconds() throws -> Int? {
        guard let slowMode else { return nil }
        guard slowMode.seconds <= Double(Self.slowModeLimit), slowMode.seconds == slowMode.seconds.rounded() else {
            throw APIError.invalid("slow_mode", "slow_mode must be whole seconds from 0 (off) to 1d")
        }
        return Int(slowMode.seconds)
    }
}
