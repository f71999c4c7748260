import IMProtocol

/// One element of the live event stream.
public enum LiveEvent: Sendable, Equatable {
    /// An event of the user's feed. Handed over at least once, in feed order, never one
    /// whose position was handed over before (except `kicked_out`, which ends the stream).
    case event(Event)
    /// The server no longer knows the saved cursor (`410 CURSOR_EXPIRED`): events may have
    /// been missed. Reload conversations and recent history, then keep consuming; the
    /// stream already holds a fresh cursor taken before this element, so nothing that
    /// happens during the reload is lost.
    case resyncNeeded(reason: String)
    /// An event this version cannot read (a newer server's message type, say): handed
    /// over in its place so the consumer can log it; the stream moves past it.
    case unreadable(UnreadableEvent)
    /// A poll failed and the stream will try again after `retryIn` (exponential backoff
    /// with jitter): for a "connection lost, retrying" state. Needs no action.
    case disconnected(IMClientError, retryIn: Duration)
    /// A poll succeeded again after `disconnected`.
    case reconnected

    /// The event, for `.event`; nil otherwise.
    public var event: Event? {
        if case .event(let event) = self { return event }
        return nil
    }
}
