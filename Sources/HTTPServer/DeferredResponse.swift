import Synchronization

/// An answer given after the responder's task has ended, from any thread: a long-poll
/// that waits for an event holds no task (and no async frames) while it waits, only this
/// handle and its connection.
///
/// Get one with `Request.deferResponse()` and return its `response` from the responder;
/// then call `send(_:)` once the answer is known. While deferred the request counts as
/// parked (`HTTPServerStats.parkedRequests`) and its socket is watched for hang-ups:
/// `onCancel` hears of one, and of the server shutting down, and should answer at once.
/// An answer to a client that went away is dropped.
public final class DeferredResponse: Sendable {
    private struct State {
        var answered = false
        var cancelled = false
        var onCancel: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())
    let link: ConnectionLink

    init(link: ConnectionLink) {
        self.link = link
        link.deferralStarted.store(true, ordering: .releasing)
        link.watcher.enter(link, deferred: self)
    }

    /// What the responder returns: tells the server this handle gives the answer.
    public var response: Response {
        var response = Response(status: 202)
        response.deferral = self
        return response
    }

    /// Answers the request. Only the first answer counts; later ones are dropped.
    public func send(_ response: Response) {
        guard retire() else { return }
        link.finish(with: response)
    }

    /// Calls `handler` once if the client hangs up or the server shuts down before the
    /// answer is sent (at once if that happened already); it replaces an earlier handler.
    /// The handler runs on a server thread and should not block.
    public func onCancel(_ handler: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.answered { return false }
            if state.cancelled { return true }
            state.onCancel = handler
            return false
        }
        if runNow { handler() }
    }

    /// The hang-up watcher's call (outside its lock).
    func cancel() {
        let handler = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.answered, !state.cancelled else { return nil }
            state.cancelled = true
            defer { state.onCancel = nil }
            return state.onCancel
        }
        handler?()
    }

    /// Ends the deferral without answering through it (the answer is sent, or the
    /// responder answered directly); false if it had ended already.
    @discardableResult
    func retire() -> Bool {
        let first = state.withLock { state -> Bool in
            guard !state.answered else { return false }
            state.answered = true
            state.onCancel = nil
            return true
        }
        if first { link.watcher.exit(link) }
        return first
    }
}

extension Request {
    /// Lets the responder's task end before the answer is known: returns the handle that
    /// answers later; the responder returns its `response`. Nil for a request made up in
    /// a test (there is no connection to answer on later): wait in the task instead.
    ///
    /// A responder that defers and then answers directly anyway ends the deferral.
    public func deferResponse() -> DeferredResponse? {
        guard let connection else { return nil }
        return DeferredResponse(link: connection)
    }
}

extension Response {
    /// True for the `response` of a `DeferredResponse`: the answer comes later.
    public var isDeferred: Bool { deferral != nil }
}
