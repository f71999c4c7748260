import HTTPServer
import IMProtocol
import IMStore

/// Notices: a bot's reply only one member of a conversation sees. Sending one costs what
/// sending a message costs (the same request budget, text limits and daily quota).
enum NoticeRoutes {
    static let routes: [Route] = [
        Route(.post, "/v1/conversations/:c/notices", access: .user, budget: .send, handler: send)
    ]

    static func send(_ context: RequestContext) async throws -> Response {
        let core = context.core
        let (access, address) = try ConversationRoutes.access(context)
        guard access.session.isBot || access.session.isAdmin else {
            throw APIError(
                .forbidden, "only bot accounts and server administrators send notices: send a message instead",
                reason: "not_a_bot")
        }
        let body = try context.decode(SendNoticeRequest.self)
        try body.validate()
        guard let entry = try await access.locate(address, createDirect: false) else {
            throw APIError(.notFound, "no conversation \(address) yet: send a message to start it")
        }
        let result: (notice: Notice, duplicate: Bool)
        do {
            result = try await core.store.sendNotice(
                NewNotice(
                    conversationID: entry.id, senderID: access.session.userID, recipientID: body.to, text: body.text,
                    clientID: body.clientID, replyTo: body.replyTo,
                    quota: core.configuration.messageQuota(isBot: access.session.isBot)))
        } catch StoreError.notMember {
            throw try await access.refusal(entry, address: address)
        } catch StoreError.refused(let reason, _) where reason == "recipient_not_member" {
            throw APIError(.forbidden, "user \(body.to) is not a member of this conversation", field: "to", reason: reason)
        } catch {
            throw ErrorMapping.rethrow(error, about: .init(field: "reply_to"))
        }
        if result.duplicate {
            guard result.notice.conversationID == entry.id, result.notice.recipientID == body.to else {
                throw APIError(
                    .conflict, "client_id '\(body.clientID)' was already used for another notice", field: "client_id")
            }
            return try .json(NoticeReceipt(notice: result.notice), status: 200, encoder: core.encoder)
        }
        return try .json(NoticeReceipt(notice: result.notice), status: 201, encoder: core.encoder)
    }
}
