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

    /// The cost of storing a message with `text`.
    public static func cost(ofMessage text: String) -> Int { text.utf8.count + overheadPerMessage }

    /// The cost of an edit to `text`.
    public static func cost(ofEdit text: String) -> Int { text.utf8.count + overheadPerMessage }

    /// The UTC day `time` falls on (days since 1970).
    static func day(of time: Timestamp) -> Int64 {
        let milliseconds = time.milliseconds
        return milliseconds >= 0 ? milliseconds / 86_400_000 : (milliseconds - 86_399_999) / 86_400_000
    }

    /// What the account's day comes to when `bytes` more are stored at `now`, given what it
    /// stored (`day`, `used`; nil: nothing yet): the day and its new total, or
    /// `.quotaExceeded` when that would pass `bytesPerDay`.
    func charge(_ stored: (day: Int64, used: Int64)?, bytes: Int, at now: Timestamp) throws -> (day: Int64, used: Int64) {
        let today = Self.day(of: now)
        let used = stored.map { $0.day == today ? $0.used : 0 } ?? 0
        try check(used: used + Int64(bytes), at: now)
        return (today, used + Int64(bytes))
    }

    /// Throws `.quotaExceeded` when `used` bytes today pass the quota.
    func check(used: Int64, at now: Timestamp) throws {
        guard used > Int64(bytesPerDay) else { return }
        let nextDay = (Self.day(of: now) + 1) * 86_400_000
        let seconds = Int((nextDay - now.milliseconds + 999) / 1000)
        throw StoreError.quotaExceeded(limit: bytesPerDay, retryAfter: max(1, seconds))
    }
}
