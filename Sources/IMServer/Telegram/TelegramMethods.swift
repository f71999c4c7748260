import HTTPServer

/// One method of the Bot API: its name as Telegram spells it, the budget a call spends,
/// and its handler.
struct TelegramMethod: Sendable {
    let name: String
    let budget: Budget
    let handler: @Sendable (TelegramCall) async throws -> Response

    init(_ name: String, budget: Budget = .general, _ handler: @escaping @Sendable (TelegramCall) async throws -> Response) {
        self.name = name
        self.budget = budget
        self.handler = handler
    }
}

/// Every method this server speaks, by lower-cased name (Telegram's names are
/// case-insensitive), and the answer for the others.
enum TelegramMethods {
    static let list: [TelegramMethod] =
        TelegramBotMethods.methods + TelegramUpdateMethods.methods + TelegramMessageMethods.methods
        + TelegramChatMethods.methods + TelegramMemberMethods.methods

    static let all: [String: TelegramMethod] = Dictionary(
        list.map { ($0.name.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })

    /// Telegram's methods this server does not speak, with why, by lower-cased name:
    /// 400 naming them. A name that is no method of Telegram's at all is a 404.
    static let declined: [String: (name: String, why: String)] = {
        let media = "Switchboard messages carry text only: send a link in the text instead"
        let groups: [(String, [String])] = [
            (media, ["sendPhoto", "sendDocument", "sendAudio", "sendVideo", "sendAnimation", "sendVoice",
                     "sendVideoNote", "sendMediaGroup", "sendSticker", "sendPaidMedia", "sendLocation", "sendVenue",
                     "sendContact", "sendPoll", "sendChecklist", "sendDice", "sendInvoice", "sendGame",
                     "editMessageCaption", "editMessageMedia", "editMessageLiveLocation", "stopMessageLiveLocation",
                     "stopPoll", "setChatPhoto", "deleteChatPhoto", "uploadStickerFile"]),
            ("Switchboard messages carry no buttons or reactions",
             ["editMessageReplyMarkup", "answerInlineQuery", "setMessageReaction", "answerWebAppQuery",
              "savePreparedInlineMessage", "setChatMenuButton", "getChatMenuButton"]),
            ("Switchboard has no pinned messages, forums, invite links or stickers",
             ["pinChatMessage", "unpinChatMessage", "unpinAllChatMessages", "exportChatInviteLink",
              "createChatInviteLink", "editChatInviteLink", "revokeChatInviteLink", "createForumTopic",
              "editForumTopic", "closeForumTopic", "reopenForumTopic", "deleteForumTopic", "getForumTopicIconStickers",
              "getStickerSet", "getCustomEmojiStickers", "setChatStickerSet", "deleteChatStickerSet",
              "setChatAdministratorCustomTitle", "banChatSenderChat", "unbanChatSenderChat", "setChatPermissions",
              "getUserChatBoosts", "getBusinessConnection", "getAvailableGifts", "sendGift",
              "setMyDefaultAdministratorRights", "getMyDefaultAdministratorRights", "answerShippingQuery",
              "answerPreCheckoutQuery", "getStarTransactions", "refundStarPayment", "setPassportDataErrors",
              "setGameScore", "getGameHighScores", "forwardMessages", "copyMessages"]),
        ]
        var declined: [String: (name: String, why: String)] = [:]
        for (why, names) in groups {
            for name in names { declined[name.lowercased()] = (name, why) }
        }
        return declined
    }()

    /// The error for a method this server does not speak: 400 naming a Telegram method it
    /// declines and why, 404 naming any other.
    static func unsupported(_ name: String) -> TelegramError {
        if let known = declined[name.lowercased()] {
            return .badRequest("method \(known.name) is not supported by this server: \(known.why)")
        }
        let shown = String(name.prefix(64))
        return TelegramError(404, "Not Found: method '\(shown)' not found (docs/telegram.md lists the methods this server speaks)")
    }
}
