import HTTPServer
import IMProtocol
import IMStore

/// The sessions list, history, sending and read markers.
enum ConversationRoutes {
    static let routes: [Route] = [
        Route(.get, "/v1/conversations", access: .user, handler: list),
        Route(.get, "/v1/conversations/:c", access: .user, handler: one),
        Route(.get, "/v1/conversations/:c/messages", access: .user, handler: history),
        Route(.post, "/v1/conversations/:c/messages", access: .user, budget: .send, handler: send),
        Route(.post, "/v1/conversations/:c/read", access: .user, handler: read),
    ]

    static func access(_ context: RequestContext) throws -> (ConversationAccess, ConversationAddress) {
        let session = try context.caller
        let address = try ConversationAccess.address(try context.parameter("c"))
        return (ConversationAccess(core: context.core, session: session), address)
    }

    static func list(_ context: RequestContext) async throws -> Response {
        let session = try context.caller
        let conversations = try await context.core.store.conversations(for: session.userID)
        return .conversations(ConversationList(conversations: conversations))
    }

    static func one(_ context: RequestContext) async throws -> Response {
        let (access, address) = try access(context)
        guard let resolved = try await access.resolve(address),
            let conversation = try await context.core.store.conversations(for: access.session.userID)
                .first(where: { $0.id == resolved.entry.id })
        else { throw APIError(.notFound, "no conversation \(address) yet: send a message to start it") }
        return try .json(conversation, encoder: context.core.encoder)
    }

    static func history(_ context: RequestContext) async throws -> Response {
        let (access, address) = try access(context)
        let limit = try context.queryInt("limit", in: Limits.pageSize, default: 20) ?? 20
        let before = try context.queryInt("before", in: 1...Int.max, default: nil).map(Int64.init)
        guard let resolved = try await access.resolve(address) else {
            return .messages(MessagePage(messages: [], nextBefore: nil))
        }
        let after = resolved.historyFloor
        let stored = try await context.core.store.messages(resolved.entry.id, after: after, before: before, limit: limit)
        // At most `Limits.answerBytes`: fewer messages, never more bytes.
        let messages = AnswerBudget.fitting(stored, size: AnswerBudget.bytes(of:))
        let full = messages.count == limit || messages.count < stored.count
        let next = full && (messages.last?.seq ?? 0) > after + 1 ? messages.last?.seq : nil
        return .messages(MessagePage(messages: messages, nextBefore: next))
    }

    static func send(_ context: RequestContext) async throws -> Response {
        let core = context.core
        let (access, address) = try access(context)
        let body = try WireReader.sendMessageRequest(context.request.body) ?? context.decode(SendMessageRequest.self)
        try body.validate()
        guard let entry = try await access.locate(address, createDirect: true) else {
            throw APIError(.notFound, "no conversation \(address)")
        }
        let result: (message: Message, duplicate: Bool)
        do {
            result = try await core.store.appendMessage(
                NewMessage(
                    conversationID: entry.id, senderID: access.session.userID, text: body.text,
                    clientMessageID: body.clientMessageID, replyTo: body.replyTo,
                    quota: core.configuration.messageQuota(isBot: access.session.isBot)))
        } catch StoreError.notMember {
            throw try await access.refusal(entry, address: address)
        } catch {
            throw ErrorMapping.rethrow(error, about: .init(field: "reply_to"))
        }
        if result.duplicate {
            guard result.message.conversationID == entry.id else {
                throw APIError(
                    .conflict, "client_msg_id '\(body.clientMessageID ?? "")' was already used for another conversation",
                    field: "client_msg_id")
            }
            return .message(result.message, status: 200)
        }
        core.metrics.messagesSent.add(1, ordering: .relaxed)
        return .message(result.message, status: 201)
    }

    /// Moves the caller's read marker. Whether they are a member is the writer's to say
    /// (`markRead` throws `notMember`), as for a send, rather than a read of their
    /// membership first on another thread.
    static func read(_ context: RequestContext) async throws -> Response {
        let (access, address) = try access(context)
        let marker = try WireReader.readMarker(context.request.body) ?? context.decode(ReadMarker.self)
        guard marker.seq >= 0 else { throw APIError.invalid("seq", "seq must not be negative") }
        guard let entry = try await access.locate(address, createDirect: false) else {
            throw APIError(.notFound, "no conversation \(address) yet")
        }
        let seq: Int64
        do {
            seq = try await context.core.store.markRead(entry.id, access.session.userID, seq: marker.seq)
        } catch StoreError.notMember {
            throw try await access.refusal(entry, address: address)
        }
        return .jsonBody(WireWriter.encode(ReadMarker(seq: seq)))
    }
}
