import IMProtocol

/// How many bytes of messages one account may store per day: the decision both stores
/// make inside the transaction of each send and edit, on the account's row of
/// `message_quotas`.
///
/// A day is a UTC day. What counts is what the account makes the server keep: each chat
/// message's text in UTF-8 plus `overheadPerMessage` (its row, its feed event and their
/// index entries), and each edit's new text plus the same (the text it replaces may be
/// kept for those who left, `FeedVisibility`). Deleting frees nothing for the day: the
/// quota bounds how fast an account can fill the disk, not what it holds. System notices
/// (written by the server for an act) are not counted. Past the quota a send or edit is
/// refused with `StoreError.quotaExceeded` and writes nothing, until the next UTC day.
public struct MessageQuota: Sendable, Hashable {
    /// The bytes one account may store per UTC day.
    public var bytesPerDay: Int

    public init(bytesPerDay: Int) {
        self.bytesPerDay = bytesPerDay
    }

    /// What a message costs besides its text: its row, its feed event and their index
    /// entries take about this much on disk, so ten thousand empty messages are not free.
    public static let overheadPerMessage = 256

    /// What storing `text` costs: a message with it, or an edit to it.
    public static func cost(of text: String) -> Int { text.utf8.count + overheadPerMessage }

    /// The UTC day `time` falls on (days since 1970).
    static func day(of time: Timestamp) -> Int64 {
        let milliseconds = time.milliseconds
        return milliseconds >= 0 ? milliseconds / 86_400_000 : (milliseconds - 86_399_999) / 86_400_000
    }

    /// The statement both stores charge a send or an edit with, in its transaction: it adds
    /// the bytes (`placeholder(3)`) to the account's (`placeholder(1)`) row for the day
    /// (`placeholder(2)`), starting the day afresh, and changes one row; or none when the
    /// day's total would pass the quota (`placeholder(4)`). One statement, no read first.
    static func chargeSQL(_ placeholder: (Int) -> String) -> String {
        let (user, day, bytes, limit) = (placeholder(1), placeholder(2), placeholder(3), placeholder(4))
        let total = "CASE WHEN q.day = \(day) THEN q.bytes + \(bytes) ELSE \(bytes) END"
        return """
            INSERT INTO message_quotas AS q (user_id, day, bytes) SELECT \(user), \(day), \(bytes) WHERE \(bytes) <= \(limit)
            ON CONFLICT (user_id) DO UPDATE SET bytes = \(total), day = \(day) WHERE \(total) <= \(limit)
            """
    }

    /// The arguments of `chargeSQL` for `bytes` more by `user` at `now`.
    func chargeArguments(_ user: UserID, bytes: Int, at now: Timestamp) -> (Int64, Int64, Int64, Int64) {
        (user.rawValue, Self.day(of: now), Int64(bytes), Int64(bytesPerDay))
    }

    /// Why a charge that changed no row was refused: the day's quota, until the next UTC day.
    func refusal(at now: Timestamp) -> StoreError {
        let nextDay = (Self.day(of: now) + 1) * 86_400_000
        let seconds = Int((nextDay - now.milliseconds + 999) / 1000)
        return StoreError.quotaExceeded(limit: bytesPerDay, retryAfter: max(1, seconds))
    }
}
