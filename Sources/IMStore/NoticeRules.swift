import IMProtocol

/// What both stores' `sendNotice` share: who may send a notice to whom, and the columns
/// a stored notice is read from.
enum NoticeRules {
    /// A notice's columns: `notices` as `n` joined with its sender as `su`.
    static let columns = "n.id, n.conversation_id, su.username, n.sender_id, n.user_id, n.text, n.client_id, n.reply_to, n.created_at"

    /// The notice of the sender's client id, joined with the sender's name; two parameters
    /// (sender id, client id), written by `placeholder`.
    static func duplicateSQL(_ placeholder: (Int) -> String) -> String {
        """
        SELECT \(columns) FROM notices n JOIN users su ON su.id = n.sender_id
        WHERE n.sender_id = \(placeholder(1)) AND n.client_id = \(placeholder(2))
        """
    }

    /// Stores a notice; seven parameters (conversation, sender, recipient, client id, text,
    /// reply, time), written by `placeholder`.
    static func insertSQL(_ placeholder: (Int) -> String) -> String {
        """
        INSERT INTO notices (conversation_id, sender_id, user_id, client_id, text, reply_to, created_at)
        VALUES (\((1...7).map(placeholder).joined(separator: ", ")))
        """
    }

    /// Whether the recipient blocks the sender; two parameters (recipient, sender).
    static func blockSQL(_ placeholder: (Int) -> String) -> String {
        "SELECT 1 FROM blocks WHERE user_id = \(placeholder(1)) AND blocked_id = \(placeholder(2)) AND user_id <> blocked_id"
    }

    /// Throws why the notice may not go: the sender is not a member, or may not post now
    /// (muted, a restricted newcomer: slow mode does not hold back a notice), or the
    /// recipient is not a member, or blocks the sender (a notice is said to one person, so
    /// a block holds in every kind of conversation).
    static func check(sender: MemberState?, recipientIsMember: Bool, blocked: Bool, at now: Timestamp) throws {
        guard let sender else { throw StoreError.notMember }
        if let refusal = sender.postingRefusal(at: now) { throw refusal }
        guard recipientIsMember else {
            throw StoreError.refused(
                reason: "recipient_not_member", message: "the recipient is not a member of this conversation")
        }
        if blocked {
            throw StoreError.refused(reason: "blocked", message: "the recipient does not take notices from you")
        }
    }
}
