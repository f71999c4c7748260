import IMProtocol
import IMStore

/// Builds the Telegram objects a bot sees (users, chats, messages) from the store,
/// remembering what it looked up for as long as it lives: one request, or one batch of
/// updates. Not `Sendable`: it belongs to one task.
final class TelegramObjects {
    let core: ServerServices
    /// The bot this is for: its own messages are not updates, and a one-to-one
    /// conversation is the chat with the other side.
    let bot: UserID
    private var users: [UserID: TGUser] = [:]
    private var userIDs: [String: UserID] = [:]
    private var chats: [ConversationID: TGChat] = [:]

    init(core: ServerServices, bot: UserID) {
        self.core = core
        self.bot = bot
    }

    /// A Switchboard profile as a Telegram user: the nickname is the first name.
    static func user(_ user: User) -> TGUser {
        TGUser(
            id: user.id.rawValue, isBot: user.isBot, firstName: user.nickname.isEmpty ? user.username : user.nickname,
            username: user.username)
    }

    func user(_ id: UserID) async throws -> TGUser {
        if let known = users[id] { return known }
        guard let record = try await core.store.user(id: id) else {
            return TGUser(id: id.rawValue, isBot: false, firstName: "deleted account")
        }
        let user = Self.user(record.user)
        users[id] = user
        userIDs[record.user.username] = id
        return user
    }

    func remember(_ user: User) -> TGUser {
        let made = Self.user(user)
        users[user.id] = made
        userIDs[user.username] = user.id
        return made
    }

    /// The account with this username, if there is one.
    func user(named username: String) async throws -> TGUser? {
        if let id = userIDs[username] { return try await user(id) }
        guard let id = try await core.directory.userID(named: username) else { return nil }
        userIDs[username] = id
        return try await user(id)
    }

    /// A conversation as this bot's chat: a group or room is a supergroup, a one-to-one
    /// conversation the private chat with the other side (`address` names them).
    func chat(_ reference: ConversationRef) async throws -> TGChat? {
        if let known = chats[reference.id] { return known }
        let chat: TGChat
        switch reference.address {
        case .user(let name):
            guard let other = try await user(named: name.lowercased()) else { return nil }
            chat = Self.privateChat(other)
        default:
            guard let record = try await core.store.conversation(id: reference.id) else { return nil }
            chat = Self.chat(record)
        }
        chats[reference.id] = chat
        return chat
    }

    static func privateChat(_ user: TGUser) -> TGChat {
        TGChat(id: user.id, type: "private", username: user.username, firstName: user.firstName)
    }

    /// A group or room as a supergroup.
    static func chat(_ record: ConversationRecord) -> TGChat {
        TGChat(
            id: TelegramChatID.conversation(record.id).value, type: "supergroup",
            title: record.title.isEmpty ? record.name : record.title)
    }

    /// A stored message as Telegram's, with the entities the server finds in its text
    /// (and `formatting`, those its sender's markup made, when it is just being sent)
    /// and, one level deep, the message it replies to.
    func message(
        _ message: Message, in chat: TGChat, replies: Bool = true, formatting: [TGEntity] = [],
        origin: TGMessageOrigin? = nil
    ) async throws -> TGMessage {
        var replied: TGMessage?
        if replies, let replyTo = message.replyTo, let original = try await core.store.message(id: replyTo),
            original.conversationID == message.conversationID
        {
            replied = try await self.message(original, in: chat, replies: false)
        }
        let text = message.deletedAt == nil ? message.text : ""
        let found = TelegramEntityScanner.entities(in: text).filter { entity in
            !formatting.contains { $0.offset == entity.offset && $0.length == entity.length && $0.type == entity.type }
        }
        let entities = (formatting + found).sorted { ($0.offset, -$0.length) < ($1.offset, -$1.length) }
        return TGMessage(
            messageId: message.seq, from: try await user(message.senderID), date: TelegramTime.seconds(message.createdAt),
            chat: chat, text: text, entities: entities, replyToMessage: replied,
            editDate: message.editedAt.map(TelegramTime.seconds), forwardOrigin: origin)
    }
}
