import IMProtocol
import IMStore

/// A chat a method names, resolved to the conversation behind it.
struct ResolvedChat {
    enum Kind {
        /// The one-to-one conversation with another user (not yet made, when `entry` is nil).
        case privateChat(User)
        /// A group or room.
        case conversation(ConversationRecord)
    }

    var kind: Kind
    var chat: TGChat
    /// The conversation, when it exists.
    var entry: ConversationDirectory.Entry?

    /// How the `/v1` routes address it (`user:NAME`, `group:NAME`, `room:NAME`).
    var address: String {
        switch kind {
        case .privateChat(let user): "user:\(user.username)"
        case .conversation(let record): "\(record.kind.rawValue):\(record.name)"
        }
    }

    /// The group or room, or a 400 naming what the method needs.
    func group(for method: String) throws -> ConversationRecord {
        guard case .conversation(let record) = kind else {
            throw TelegramError.badRequest("\(method) is for groups: chat \(chat.id) is a private chat")
        }
        return record
    }
}

extension TelegramCall {
    /// The chat a parameter names: a user's id (the private chat with them), a
    /// supergroup's `-100…` id, or `@name` for a group (or room) by its name. 400
    /// `chat not found` for anything else.
    func chat(_ parameter: String = "chat_id", creatingPrivate: Bool = false) async throws -> ResolvedChat {
        let text = try parameters.requiredString(parameter)
        if text.hasPrefix("@") {
            let name = text.dropFirst().lowercased()
            for kind in [ConversationKind.group, .room] {
                if let record = try await core.store.conversation(kind: kind, name: name) {
                    return ResolvedChat(
                        kind: .conversation(record), chat: TelegramObjects.chat(record),
                        entry: .init(id: record.id, kind: record.kind, name: record.name))
                }
            }
            throw TelegramError.chatNotFound
        }
        guard let value = Int64(text.trimmingCharacters(in: .whitespaces)), let id = TelegramChatID(value) else {
            throw TelegramError.chatNotFound
        }
        switch id {
        case .privateChat(let userID):
            guard userID != bot, let record = try await core.store.user(id: userID), record.deletedAt == nil else {
                throw TelegramError.chatNotFound
            }
            let entry = try await core.directory.entry(
                for: .user(record.user.username), viewer: bot, createDirect: creatingPrivate)
            return ResolvedChat(
                kind: .privateChat(record.user), chat: TelegramObjects.privateChat(objects.remember(record.user)),
                entry: entry)
        case .conversation(let conversationID):
            guard let record = try await core.store.conversation(id: conversationID), record.kind != .direct else {
                throw TelegramError.chatNotFound
            }
            return ResolvedChat(
                kind: .conversation(record), chat: TelegramObjects.chat(record),
                entry: .init(id: record.id, kind: record.kind, name: record.name))
        }
    }

    /// The message numbered `seq` in a chat the bot is in; 400 `message not found` when
    /// there is none (or the bot may not read it).
    func message(_ seq: Int64, in chat: ResolvedChat, missing: TelegramError = .messageNotFound) async throws -> Message {
        guard seq > 0, let entry = chat.entry else { throw missing }
        let access = ConversationAccess(core: core, session: session)
        guard let resolved = try await access.resolve(.id(entry.id)) else { throw missing }
        let found = try await core.store.messages(
            entry.id, after: max(seq - 1, resolved.historyFloor), before: seq + 1, limit: 1)
        guard let message = found.first, message.seq == seq else { throw missing }
        return message
    }

    /// A user a parameter names by id.
    func user(_ parameter: String = "user_id") async throws -> User {
        let id = try parameters.requiredInt(parameter)
        guard id > 0, let record = try await core.store.user(id: UserID(rawValue: id)), record.deletedAt == nil else {
            throw TelegramError.userNotFound
        }
        return record.user
    }
}
