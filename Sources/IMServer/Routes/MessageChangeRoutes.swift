import HTTPServer
import IMProtocol
import IMStore

/// Changing sent messages: the sender edits, the sender or a group's admin deletes.
///
/// Both answer the message as it is afterwards, and both need the caller in the
/// conversation, as every conversation endpoint does (`ConversationAccess`); server
/// administrators may delete in any group, as its owner would.
enum MessageChangeRoutes {
    static let routes: [Route] = [
        Route(.patch, "/v1/conversations/:c/messages/:id", access: .user, budget: .send, handler: edit),
        Route(.delete, "/v1/conversations/:c/messages/:id", access: .user, handler: delete),
    ]

    static func edit(_ context: RequestContext) async throws -> Response {
        let (access, address) = try ConversationRoutes.access(context)
        let id = try messageID(context)
        let body = try context.decode(EditMessageRequest.self)
        try body.validate()
        guard let resolved = try await access.resolve(address) else { throw noMessage(id) }
        let message = try await context.core.store.editMessage(
            MessageEdit(
                conversationID: resolved.entry.id, messageID: id, editor: access.session.userID, text: body.text,
                quota: context.core.configuration.messageQuota(isBot: access.session.isBot)))
        return .message(message, status: 200)
    }

    static func delete(_ context: RequestContext) async throws -> Response {
        let core = context.core
        let (access, address) = try ConversationRoutes.access(context)
        let session = access.session
        let id = try messageID(context)
        guard let entry = try await access.locate(address, createDirect: false) else { throw noMessage(id) }
        // A server administrator moderates any group without joining it.
        if !(entry.kind == .group && session.isAdmin) { _ = try await access.resolve(address) }
        guard let stored = try await core.store.message(id: id), stored.conversationID == entry.id else {
            throw noMessage(id)
        }
        let message = try await core.store.deleteMessage(
            MessageDeletion(
                conversationID: entry.id, messageID: id,
                by: session.acting,
                notice: "\(session.username) deleted a message by \(stored.sender)"))
        return .message(message, status: 200)
    }

    /// The message id in the path.
    private static func messageID(_ context: RequestContext) throws -> MessageID {
        let text = try context.parameter("id")
        guard let id = MessageID(text) else {
            throw APIError.invalid("id", "'\(text)' is not a message id: use the id of a message from its history")
        }
        return id
    }

    private static func noMessage(_ id: MessageID) -> APIError {
        APIError(.notFound, "no message \(id) in this conversation")
    }
}
