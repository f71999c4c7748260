/// The Telegram Bot API's objects as this server writes them (core.telegram.org/bots/api),
/// with every field the frameworks require: aiogram validates whole replies with
/// pydantic, python-telegram-bot builds objects from their required fields, so a field
/// left out fails the call on the bot's side. Property names are the API's in camel case
/// (`TelegramJSON` writes them in snake case); nil fields are left out.

/// A user or bot.
struct TGUser: Codable, Sendable, Hashable {
    var id: Int64
    var isBot: Bool
    var firstName: String
    var lastName: String?
    var username: String?
    var languageCode: String?
    // getMe only:
    var canJoinGroups: Bool?
    var canReadAllGroupMessages: Bool?
    var supportsInlineQueries: Bool?
    var canConnectToBusiness: Bool?
    var hasMainWebApp: Bool?
}

/// A chat: `private` (a one-to-one conversation) or `supergroup` (a group or room).
struct TGChat: Encodable, Sendable, Hashable {
    var id: Int64
    var type: String
    var title: String?
    var username: String?
    var firstName: String?
}

/// `getChat`'s answer.
struct TGChatFullInfo: Encodable, Sendable {
    /// Required since Bot API 9.0; nothing here accepts gifts.
    struct AcceptedGiftTypes: Encodable, Sendable {
        var unlimitedGifts = false
        var limitedGifts = false
        var uniqueGifts = false
        var premiumSubscription = false
        var giftsFromChannels = false
    }

    var id: Int64
    var type: String
    var title: String?
    var username: String?
    var firstName: String?
    var description: String?
    var bio: String?
    var accentColorId = 0
    var maxReactionCount = 0
    var acceptedGiftTypes = AcceptedGiftTypes()
    var permissions: TGChatPermissions?
    var joinByRequest: Bool?
}

/// What members may do (`restrictChatMember`, `getChat`); every field optional on input.
struct TGChatPermissions: Codable, Sendable, Hashable {
    var canSendMessages: Bool?
    var canSendAudios: Bool?
    var canSendDocuments: Bool?
    var canSendPhotos: Bool?
    var canSendVideos: Bool?
    var canSendVideoNotes: Bool?
    var canSendVoiceNotes: Bool?
    var canSendPolls: Bool?
    var canSendOtherMessages: Bool?
    var canAddWebPagePreviews: Bool?
    var canChangeInfo: Bool?
    var canInviteUsers: Bool?
    var canPinMessages: Bool?
    var canManageTopics: Bool?

    /// Everything allowed, or everything refused.
    static func all(_ allowed: Bool) -> TGChatPermissions {
        TGChatPermissions(
            canSendMessages: allowed, canSendAudios: allowed, canSendDocuments: allowed, canSendPhotos: allowed,
            canSendVideos: allowed, canSendVideoNotes: allowed, canSendVoiceNotes: allowed, canSendPolls: allowed,
            canSendOtherMessages: allowed, canAddWebPagePreviews: allowed, canChangeInfo: allowed,
            canInviteUsers: allowed, canPinMessages: allowed, canManageTopics: allowed)
    }
}

/// A part of a message's text with a meaning: a command, a mention, a link, bold…
/// `offset` and `length` count UTF-16 code units, as Telegram's do.
struct TGEntity: Codable, Sendable, Hashable {
    var type: String
    var offset: Int
    var length: Int
    var url: String?
    var user: TGUser?
    var language: String?
    var customEmojiId: String?
}

/// Where a forwarded message came from.
struct TGMessageOrigin: Encodable, Sendable {
    var type = "user"
    var date: Int64
    var senderUser: TGUser
}

/// A message. A class: a message carries the one it replies to.
final class TGMessage: Encodable, Sendable {
    let messageId: Int64
    let from: TGUser?
    let date: Int64
    let chat: TGChat
    let text: String?
    let entities: [TGEntity]?
    let replyToMessage: TGMessage?
    let editDate: Int64?
    let newChatMembers: [TGUser]?
    let leftChatMember: TGUser?
    let newChatTitle: String?
    let forwardOrigin: TGMessageOrigin?

    init(
        messageId: Int64, from: TGUser?, date: Int64, chat: TGChat, text: String? = nil, entities: [TGEntity]? = nil,
        replyToMessage: TGMessage? = nil, editDate: Int64? = nil, newChatMembers: [TGUser]? = nil,
        leftChatMember: TGUser? = nil, newChatTitle: String? = nil, forwardOrigin: TGMessageOrigin? = nil
    ) {
        self.messageId = messageId
        self.from = from
        self.date = date
        self.chat = chat
        self.text = text
        self.entities = entities.flatMap { $0.isEmpty ? nil : $0 }
        self.replyToMessage = replyToMessage
        self.editDate = editDate
        self.newChatMembers = newChatMembers
        self.leftChatMember = leftChatMember
        self.newChatTitle = newChatTitle
        self.forwardOrigin = forwardOrigin
    }
}

/// `copyMessage`'s answer.
struct TGMessageId: Encodable, Sendable {
    var messageId: Int64
}

/// A change of someone's standing in a chat (`chat_member`, `my_chat_member`).
struct TGChatMemberUpdated: Encodable, Sendable {
    var chat: TGChat
    var from: TGUser
    var date: Int64
    var oldChatMember: TGChatMember
    var newChatMember: TGChatMember
}

/// One incoming update.
struct TGUpdate: Encodable, Sendable {
    var updateId: Int64
    var message: TGMessage?
    var editedMessage: TGMessage?
    var myChatMember: TGChatMemberUpdated?
    var chatMember: TGChatMemberUpdated?

    /// Its kind, as `allowed_updates` names it.
    var kind: String {
        if message != nil { return "message" }
        if editedMessage != nil { return "edited_message" }
        if myChatMember != nil { return "my_chat_member" }
        return "chat_member"
    }
}

/// `getWebhookInfo`'s answer.
struct TGWebhookInfo: Encodable, Sendable {
    var url: String
    var hasCustomCertificate = false
    var pendingUpdateCount: Int
    var lastErrorDate: Int64?
    var lastErrorMessage: String?
    var maxConnections: Int?
    var allowedUpdates: [String]?
}

/// A command in the bot's menu.
struct TGBotCommand: Codable, Sendable, Hashable {
    var command: String
    var description: String
}

struct TGBotName: Encodable, Sendable { var name: String }
struct TGBotDescription: Encodable, Sendable { var description: String }
struct TGBotShortDescription: Encodable, Sendable { var shortDescription: String }

/// A file the bot may download from `/file/bot<token>/<file_path>`.
struct TGFile: Encodable, Sendable {
    var fileId: String
    var fileUniqueId: String
    var fileSize: Int?
    var filePath: String?
}

struct TGPhotoSize: Encodable, Sendable {
    var fileId: String
    var fileUniqueId: String
    var width: Int
    var height: Int
    var fileSize: Int?
}

struct TGUserProfilePhotos: Encodable, Sendable {
    var totalCount: Int
    var photos: [[TGPhotoSize]]
}
