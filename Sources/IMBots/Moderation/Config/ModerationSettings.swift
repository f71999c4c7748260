import IMProtocol
import YAMLCoding

/// A bot file's `moderation:` section: where cases are logged, and who moderates.
public struct ModerationSettings: Sendable, Hashable {
    /// The mod-log conversation: an invite-only group the bot creates if it is missing
    /// (it repeats deleted text, so it must not be open); nil logs cases nowhere but the
    /// audit log.
    public var log: ConversationAddress?
    /// Accounts the bot invites into the mod-log group when it starts.
    public var moderators: [String]
    /// The moderators listed with their account's id (`NAME#ID`): only that account is
    /// bound to the name, so nobody who registers the name first can claim it.
    public var accountIDs: [String: Int64]

    /// No mod-log.
    public init(log: ConversationAddress? = nil, moderators: [String] = [], accountIDs: [String: Int64] = [:]) {
        self.log = log
        self.moderators = moderators
        self.accountIDs = accountIDs
    }
}

/// `moderation: {log: "group:mods", moderators: [alice, "bob#17"]}`.
struct ModerationSection: Decodable, Sendable {
    enum CodingKeys: String, CodingKey, CaseIterable { case log, moderators }

    var settings: ModerationSettings
    /// Where `log` and `moderators` are written (for what a platform cannot do with them).
    var logMark: YAMLMark?
    var moderatorsMark: YAMLMark?

    init(from decoder: any Decoder) throws {
        let context = decoder.botDecoding
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var settings = ModerationSettings()
        if container.contains(.moderators) {
            moderatorsMark = try container.decode(YAMLNode.self, forKey: .moderators).mark
        }
        if let log = try container.decodeIfPresent(Located<String>.self, forKey: .log) {
            logMark = log.mark
            let written = try context.conversation(log.value, at: log.mark, path: container.codingPath + [CodingKeys.log])
            guard case .group(let name)? = written,
                  written?.matrixRoom != nil || (try? Validate.conversationName(name)) != nil else {
                throw context.failure(.invalidValue, "moderation.log is a group (write group:NAME; on Matrix also "
                                      + "'!id:server' or '#alias:server'): the mod-log repeats deleted messages, so "
                                      + "it is an invite-only group the bot keeps",
                                      at: log.mark, path: container.codingPath + [CodingKeys.log])
            }
            settings.log = .group(name)
        }
        for entry in try container.decodeIfPresent([Located<String>].self, forKey: .moderators) ?? [] {
            let parts = entry.value.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
            guard let username = try? Validate.username(parts[0].lowercased()) else {
                throw context.failure(.invalidValue, "'\(entry.value)' is not a username (or NAME#ID)",
                                      at: entry.mark, path: container.codingPath + [CodingKeys.moderators])
            }
            if parts.count == 2 {
                guard let id = Int64(parts[1]), id > 0 else {
                    throw context.failure(.invalidValue, "'\(entry.value)': after '#' comes the account's id, a number "
                                          + "(the \"id\" of GET /v1/users/\(username))",
                                          at: entry.mark, path: container.codingPath + [CodingKeys.moderators])
                }
                settings.accountIDs[username] = id
            }
            settings.moderators.append(username)
        }
        if !settings.moderators.isEmpty, settings.log == nil {
            throw context.failure(.invalidValue, "moderators are invited into the mod-log: set moderation.log too",
                                  at: decoder.mark, path: decoder.codingPath)
        }
        self.settings = settings
    }
}
