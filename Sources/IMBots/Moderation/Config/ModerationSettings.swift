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

    /// No mod-log.
    public init(log: ConversationAddress? = nil, moderators: [String] = []) {
        self.log = log
        self.moderators = moderators
    }
}

/// `moderation: {log: "group:mods", moderators: [alice, bob]}`.
struct ModerationSection: Decodable, Sendable {
    enum CodingKeys: String, CodingKey, CaseIterable { case log, moderators }

    var settings: ModerationSettings

    init(from decoder: any Decoder) throws {
        let context = decoder.botDecoding
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var settings = ModerationSettings()
        if let log = try container.decodeIfPresent(Located<String>.self, forKey: .log) {
            guard case .group(let name)? = ConversationAddress(log.value.lowercased()),
                  (try? Validate.conversationName(name)) != nil else {
                throw context.failure(.invalidValue, "moderation.log is a group (write group:NAME): the mod-log repeats "
                                      + "deleted messages, so it is an invite-only group the bot keeps",
                                      at: log.mark, path: container.codingPath + [CodingKeys.log])
            }
            settings.log = .group(name)
        }
        for name in try container.decodeIfPresent([Located<String>].self, forKey: .moderators) ?? [] {
            guard let username = try? Validate.username(name.value.lowercased()) else {
                throw context.failure(.invalidValue, "'\(name.value)' is not a username",
                                      at: name.mark, path: container.codingPath + [CodingKeys.moderators])
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
