import IMProtocol

/// How Switchboard's identities appear in the Telegram Bot API.
///
/// - A user is a user, with their account id (positive).
/// - A one-to-one conversation is a private chat whose id is the other user's, as
///   Telegram's are.
/// - A group or room is a supergroup: `-100` followed by its conversation id, padded to
///   ten digits (`-1000000000007` is conversation 7), the shape every framework reads
///   as a supergroup's.
/// - A message's id is its `seq`: counted from 1 in each conversation, as Telegram counts
///   them per chat.
/// - An update's id is the feed position of the event it came from, times two, plus one
///   for the second update an event makes (a join is a service message and a
///   `chat_member` update): ids grow with the feed, and the offset a bot confirms maps
///   back onto a feed position.
enum TelegramChatID: Sendable, Hashable {
    case privateChat(with: UserID)
    case conversation(ConversationID)

    /// Added to a conversation id and negated: `-100` and ten digits.
    static let supergroupBase: Int64 = 1_000_000_000_000

    /// The chat an id names, or nil when it names none of these.
    init?(_ value: Int64) {
        if value > 0 {
            self = .privateChat(with: UserID(rawValue: value))
        } else if value < -Self.supergroupBase {
            let (id, overflow) = (-value).subtractingReportingOverflow(Self.supergroupBase)
            guard !overflow, id > 0 else { return nil }
            self = .conversation(ConversationID(rawValue: id))
        } else {
            return nil
        }
    }

    var value: Int64 {
        switch self {
        case .privateChat(let user): user.rawValue
        case .conversation(let id): -(Self.supergroupBase + id.rawValue)
        }
    }
}

/// Update ids and feed positions (see `TelegramChatID`).
enum TelegramUpdateID {
    /// Updates one event can make.
    static let perEvent: Int64 = 2

    static func make(position: Int64, slot: Int64) -> Int64 { position * perEvent + slot }

    /// The feed position whose events carry `updateID`.
    static func position(of updateID: Int64) -> Int64 { updateID / perEvent }

    /// The first update id of the event at `position`.
    static func first(of position: Int64) -> Int64 { position * perEvent }
}
