import Foundation
import IMProtocol

/// Notices: replies only one member of a conversation sees.
extension IMClient {
    /// Sends a notice to one member of a conversation (`recipient` gets it as a `notice`
    /// event of their feed; it is in nobody's history). Only a bot account or a server
    /// administrator that is a member may send one, to a member.
    ///
    /// `clientID` makes it idempotent: the same id again (after a lost connection, a `429`
    /// or `503`, or a restart of your program) answers the first notice instead of sending
    /// a second; `configuration.sendRetry` bounds the retries this call makes itself.
    @discardableResult
    public func sendNotice(
        in conversation: ConversationID, to recipient: UserID, text: String, clientID: String,
        replyTo: MessageID? = nil
    ) async throws(IMClientError) -> Notice {
        let body = SendNoticeRequest(to: recipient, text: text, clientID: clientID, replyTo: replyTo)
        let request = try APIRequest("POST", APIPath.conversation(.id(conversation)) + "/notices").json(body)
        return try await withRetry(configuration.sendRetry) { () async throws(IMClientError) in
            try await self.call(request, as: NoticeReceipt.self).notice
        }
    }
}
