/// Wake-ups for commits made on any server node sharing one database: the seam the
/// server's feed observer plugs into, as `EventStore.observeFeeds` is for one node.
///
/// A wake-up says "look again", never "here is everything": a node may be told
/// `mayHaveMissed` at any time (after a reconnect, at start) and must then re-read what
/// it watches, because notifications sent while it was not listening are gone.
public protocol ClusterWakeups: Sendable {
    /// Calls `observer` for every wake-up from now on, on the listener's thread: keep it
    /// short (hand the work to a task or a queue).
    func observe(_ observer: @escaping @Sendable (ClusterWakeup) -> Void)
}

/// One wake-up.
public enum ClusterWakeup: Sendable, Equatable {
    /// A commit on some node (this one included) sent this notification.
    case notification(PostgresNotification)
    /// Listening has (re)started: anything sent before may have been missed, so re-read.
    /// Every notification sent after it is delivered.
    case mayHaveMissed
}

/// A notification sent by `NOTIFY` / `pg_notify`, as a listener receives it.
public struct PostgresNotification: Sendable, Equatable {
    /// The channel it was sent on.
    public var channel: String
    /// The text sent with it (at most 7999 bytes).
    public var payload: String
    /// The server process of the sending session.
    public var senderPID: Int32

    /// A notification as received.
    public init(channel: String, payload: String, senderPID: Int32) {
        self.channel = channel
        self.payload = payload
        self.senderPID = senderPID
    }
}
