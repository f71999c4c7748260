import HTTPServer
import IMProtocol
import IMStore

/// Sending, forwarding, copying, editing and deleting messages, through the `/v1`
/// conversation routes.
enum TelegramMessageMethods {
    static let methods: [TelegramMethod] = [
        TelegramMethod("sendMessage", budget: .send, sendMessage),
        TelegramMethod("forwardMessage", budget: .send) { try await forward($0, copy: false) },
        TelegramMethod("copyMessage", budget: .send) { try await forward($0, copy: true) },
        TelegramMethod("editMessageText", budget: .send, editMessageText),
        TelegramMethod("deleteMessage", deleteMessage),
        TelegramMethod("deleteMessages", deleteMessages),
        TelegramMethod("sendChatAction", sendChatAction),
        TelegramMethod("answerCallbackQuery", answerCallbackQuery),
    ]

    /// `sendMessage`: `text` read in its `parse_mode` (or with its `entities`), replying to
    /// `reply_parameters.message_id` or `reply_to_message_id`. `disable_notification`,
    /// `protect_content`, link previews and `reply_markup` are accepted and have no effect
    /// (Switchboard has no notifications' sound, previews or buttons).
    static func sendMessage(_ call: TelegramCall) async throws -> Response {
        let chat = try await call.chat(creatingPrivate: true)
        let (text, formatting) = try call.formattedText()
        let replyTo = try await call.replyTarget(in: chat)
        let sent = try await call.send(text, to: chat, replyTo: replyTo)
        return try TelegramJSON.success(try await call.objects.message(sent, in: chat.chat, formatting: formatting))
    }

    /// `forwardMessage` and `copyMessage`: the text of a message the bot can read, sent
    /// again by the bot; a forward answers with its `forward_origin`, a copy with its id.
    static func forward(_ call: TelegramCall, copy: Bool) async throws -> Response {
        let source = try await call.chat("from_chat_id")
        let original = try await call.message(try call.parameters.requiredInt("message_id"), in: source)
        guard original.type == .chat, original.deletedAt == nil else {
            throw TelegramError.badRequest("message can't be \(copy ? "copied" : "forwarded")")
        }
        let chat = try await call.chat(creatingPrivate: true)
        var text = original.text
        var formatting: [TGEntity] = []
        if copy, call.parameters.has("caption") { (text, formatting) = try call.formattedText("caption") }
        let replyTo = copy ? try await call.replyTarget(in: chat) : nil
        let sent = try await call.send(text, to: chat, replyTo: replyTo)
        if copy { return try TelegramJSON.success(TGMessageId(messageId: sent.seq)) }
        let origin = TGMessageOrigin(
            date: TelegramTime.seconds(original.createdAt), senderUser: try await call.objects.user(original.senderID))
        return try TelegramJSON.success(try await call.objects.message(sent, in: chat.chat, origin: origin))
    }

    /// `editMessageText` of one of the bot's own messages; an inline message has no
    /// counterpart here. The same text again is refused, as Telegram refuses it.
    static func editMessageText(_ call: TelegramCall) async throws -> Response {
        if call.parameters.has("inline_message_id") {
            throw TelegramError.badRequest("inline messages are not supported by this server: give chat_id and message_id")
        }
        let chat = try await call.chat()
        let message = try await call.message(
            try call.parameters.requiredInt("message_id"), in: chat, missing: .badRequest("message to edit not found"))
        let (text, formatting) = try call.formattedText()
        if message.text == text {
            throw TelegramError.badRequest(
                "message is not modified: specified new message content and reply markup are exactly the same as a "
                    + "current content and reply markup of the message")
        }
        let edited = try await call.v1(
            MessageChangeRoutes.edit, path: ["c": chat.address, "id": message.id.description],
            body: EditMessageRequest(text: text), as: Message.self)
        return try TelegramJSON.success(try await call.objects.message(edited, in: chat.chat, formatting: formatting))
    }

    static func deleteMessage(_ call: TelegramCall) async throws -> Response {
        let chat = try await call.chat()
        try await delete(try call.parameters.requiredInt("message_id"), in: chat, call)
        return try TelegramJSON.success(true)
    }

    /// `deleteMessages`: 1 to 100; those that cannot be found are skipped, as Telegram does.
    static func deleteMessages(_ call: TelegramCall) async throws -> Response {
        let chat = try await call.chat()
        guard let ids = try call.parameters.decode("message_ids", as: [Int64].self), (1...100).contains(ids.count) else {
            throw TelegramError.badRequest("message_ids must list 1 to 100 message ids")
        }
        for id in ids {
            do {
                try await delete(id, in: chat, call)
            } catch let error as TelegramError where error == .badRequest("message to delete not found") {
                continue
            }
        }
        return try TelegramJSON.success(true)
    }

    private static func delete(_ seq: Int64, in chat: ResolvedChat, _ call: TelegramCall) async throws {
        let message = try await call.message(seq, in: chat, missing: .badRequest("message to delete not found"))
        if message.type != .chat { throw TelegramError.badRequest("message can't be deleted") }
        do {
            try await call.v1(MessageChangeRoutes.delete, path: ["c": chat.address, "id": message.id.description])
        } catch let error as APIError where error.code == .forbidden {
            throw TelegramError.badRequest("message can't be deleted: \(error.message)")
        }
    }

    /// Typing indicators are not shown in Switchboard: the chat is checked and the call
    /// succeeds.
    static func sendChatAction(_ call: TelegramCall) async throws -> Response {
        let chat = try await call.chat()
        if let entry = chat.entry, try await call.core.store.membership(entry.id, call.bot) == nil {
            throw TelegramError.forbidden("bot is not a member of the chat")
        }
        return try TelegramJSON.success(true)
    }

    /// No message carries buttons here, so no callback query exists to answer.
    static func answerCallbackQuery(_ call: TelegramCall) async throws -> Response {
        throw TelegramError.badRequest("query is too old and response timeout expired or query ID is invalid")
    }
}

extension TelegramCall {
    /// The text of a message to send and its entities: markup read in `parse_mode`, or the
    /// `entities` given; Telegram's words for an empty or long text.
    func formattedText(_ parameter: String = "text") throws -> (String, [TGEntity]) {
        let raw = try parameters.string(parameter) ?? ""
        var text = raw
        var entities: [TGEntity] = []
        if let given = try parameters.decode(parameter == "text" ? "entities" : "caption_entities", as: [TGEntity].self) {
            entities = given
        } else if let mode = try ParseMode(try parameters.string("parse_mode")) {
            (text, entities) = try mode.parse(raw)
        }
        guard !text.allSatisfy(\.isWhitespace) else { throw TelegramError.badRequest("message text is empty") }
        guard text.count <= Limits.messageTextLength.upperBound else { throw TelegramError.badRequest("message is too long") }
        // As Telegram does: entities outside the text are dropped, and those past the 100th.
        let units = text.utf16.count
        let inside = entities.filter { $0.offset >= 0 && $0.length > 0 && $0.offset <= units - $0.length }
        return (text, Array(inside.prefix(Self.maxEntities)))
    }

    /// The most entities a sent message keeps.
    static let maxEntities = 100

    /// The message a send replies to: `reply_parameters` or `reply_to_message_id`, in this
    /// chat; a missing one is refused unless `allow_sending_without_reply`.
    func replyTarget(in chat: ResolvedChat) async throws -> MessageID? {
        struct ReplyParameters: Decodable {
            var messageId: Int64
            var allowSendingWithoutReply: Bool?
        }
        let given = try parameters.decode("reply_parameters", as: ReplyParameters.self)
        guard let seq = try given?.messageId ?? parameters.int("reply_to_message_id") else { return nil }
        let lenient = try given?.allowSendingWithoutReply ?? parameters.bool("allow_sending_without_reply") ?? false
        do {
            return try await message(seq, in: chat, missing: .badRequest("message to be replied not found")).id
        } catch let error as TelegramError where lenient && error.code == 400 {
            return nil
        }
    }

    /// Sends `text` as the bot through `POST /v1/conversations/{c}/messages`.
    func send(_ text: String, to chat: ResolvedChat, replyTo: MessageID?) async throws -> Message {
        try await v1(
            ConversationRoutes.send, path: ["c": chat.address], body: SendMessageRequest(text: text, replyTo: replyTo),
            as: Message.self)
    }
}
