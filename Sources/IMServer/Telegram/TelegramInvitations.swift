import IMProtocol
import IMStore

/// Telegram's bots are added to groups, not invited: an invitation of a bot that speaks
/// the Bot API is accepted at once, so that a bot which only sends (an Alertmanager
/// receiver) can post where it is invited, and `my_chat_member` tells a bot that reads
/// its updates that it joined.
enum TelegramInvitations {
    /// Accepts `user`'s invitation to `conversation` when `user` is a bot with a Telegram token.
    static func acceptIfTelegramBot(_ user: User, to conversation: ConversationRecord, core: ServerServices) async throws {
        guard user.isBot, try await core.store.telegramBot(user.id) != nil else { return }
        try await accept(user.username, user.id, to: conversation.id, kind: conversation.kind, store: core.store)
    }

    static func accept(
        _ username: String, _ userID: UserID, to conversation: ConversationID, kind: ConversationKind, store: any IMStorage
    ) async throws {
        let notice = kind == .group ? "joined the group" : "entered the room"
        _ = try await store.join(
            conversation, userID, change: MembershipChange(event: .memberJoined, notice: "\(username) \(notice)"))
    }
}
