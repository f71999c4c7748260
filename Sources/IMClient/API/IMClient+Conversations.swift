import Foundation
import IMProtocol

/// The sessions list, history, sending and read markers.
extension IMClient {
    /// Every conversation of the caller with its last message and unread count: unread
    /// first, then most recent.
    public func conversations() async throws(IMClientError) -> [Conversation] {
        try await call(APIRequest("GET", "/v1/conversations"), as: ConversationList.self).conversations
    }

    /// One conversation's row; `NOT_FOUND` for a one-to-one conversation never used.
    public func conversation(_ address: ConversationAddress) async throws(IMClientError) -> Conversation {
        try await call(APIRequest("GET", APIPath.conversation(address)), as: Conversation.self)
    }

    /// One page of history, newest first: pass the page's `nextBefore` as `before` for the
    /// next older page. `limit` is 1...200 (the server's default is 20).
    public func history(_ address: ConversationAddress, before: Int64? = nil, limit: Int? = nil)
        async throws(IMClientError) -> MessagePage
    {
        var query: [(name: String, value: String)] = []
        if let before { query.append(("before", String(before))) }
        if let limit {
            guard Limits.pageSize.contains(limit) else {
                throw IMClientError(
                    .invalidArgument,
                    "a history page holds \(Limits.pageSize.lowerBound) to \(Limits.pageSize.upperBound) messages, not \(limit)")
            }
            query.append(("limit", String(limit)))
        }
        return try await call(APIRequest("GET", APIPath.conversation(address) + "/messages", query: query))
    }

    /// Sends a text message and returns it as stored.
    ///
    /// The message carries `clientMessageID` (a new UUID when nil) on every attempt, so
    /// retries after a lost connection, a timeout, `429` (after its `Retry-After`) or
    /// `503` never make a second message; `configuration.sendRetry` bounds them. Pass
    /// your own id to make a send idempotent across restarts of your program too.
    @discardableResult
    public func send(
        _ text: String, to address: ConversationAddress, replyTo: MessageID? = nil, clientMessageID: String? = nil
    ) async throws(IMClientError) -> Message {
        let body = SendMessageRequest(
            text: text, clientMessageID: clientMessageID ?? UUID().uuidString.lowercased(), replyTo: replyTo)
        let request = try APIRequest("POST", APIPath.conversation(address) + "/messages").json(body)
        return try await withRetry(configuration.sendRetry) { () async throws(IMClientError) in
            try await self.call(request, as: Message.self)
        }
    }

    /// Replaces the text of one of the caller's messages; every member gets
    /// `message_edited`, and history shows the new text with `editedAt`. `FORBIDDEN`
    /// (reason `not_sender`) for someone else's message, `muted` while muted. Safe to
    /// retry: the same text again changes nothing.
    @discardableResult
    public func editMessage(_ id: MessageID, in address: ConversationAddress, text: String)
        async throws(IMClientError) -> Message
    {
        let request = try APIRequest("PATCH", Self.messagePath(id, in: address)).json(EditMessageRequest(text: text))
        return try await withRetry(configuration.sendRetry) { () async throws(IMClientError) in
            try await self.call(request, as: Message.self)
        }
    }

    /// Deletes a message for everyone: its text is gone from history, the sessions list
    /// and every later read of the feeds; members get `message_deleted`. The sender may,
    /// and in a group its admins and owner (who leave a notice naming them). Returns the
    /// message as it is now (no text, `deletedAt` set); safe to retry.
    @discardableResult
    public func deleteMessage(_ id: MessageID, in address: ConversationAddress) async throws(IMClientError) -> Message {
        let request = APIRequest("DELETE", Self.messagePath(id, in: address))
        return try await withRetry(configuration.sendRetry) { () async throws(IMClientError) in
            try await self.call(request, as: Message.self)
        }
    }

    private static func messagePath(_ id: MessageID, in address: ConversationAddress) -> String {
        APIPath.conversation(address) + "/messages/" + APIPath.segment(id.description)
    }

    /// Marks everything up to `seq` as read; returns the marker now stored (it never
    /// moves backwards).
    @discardableResult
    public func markRead(_ address: ConversationAddress, seq: Int64) async throws(IMClientError) -> Int64 {
        let request = try APIRequest("POST", APIPath.conversation(address) + "/read").json(ReadMarker(seq: seq))
        return try await call(request, as: ReadMarker.self).seq
    }

    /// Runs `attempt` until it succeeds, fails for good, or `policy` runs out, waiting
    /// on this client's clock.
    func withRetry<T>(
        _ policy: RetryPolicy, _ attempt: () async throws(IMClientError) -> T
    ) async throws(IMClientError) -> T {
        try await policy.run(sleep: configuration.sleep, random: configuration.random, attempt)
    }
}
