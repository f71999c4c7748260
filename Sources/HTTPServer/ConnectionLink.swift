import CMicroHTTPD
import Foundation
import Synchronization

/// One request's tie to its connection and server: MHD keeps it (retained) as the
/// request's context pointer from the first access-handler call until the request is
/// completed, and `Request` keeps it so a deferred answer can find the connection.
///
/// `@unchecked Sendable`: the request fields (`head`, `body`, limits) are only touched on
/// MHD's thread for this connection, before the request is handed to its task;
/// `response` is written by the task before it hands the connection back
/// (`ConnectionState.transition`, acquire/release) and read by MHD's thread after (an
/// abandoned request's response is never read); `parkToken` and `deferred` are guarded
/// by the hang-up watcher's lock.
final class ConnectionLink: @unchecked Sendable {
    /// Not the whole `DaemonContext`: a request kept by the responder must not keep the
    /// responder alive through it.
    let watcher: HangupWatcher
    let connection: ConnectionState

    // MARK: Request being read (MHD's thread)
    let head: RequestHead
    /// The client (the peer, or whom a trusted proxy forwards for).
    let clientAddress: String
    let bodyLimit: Int
    /// The declared length, reserved once the body starts arriving (not before: a client
    /// that only declares a length must not make the server allocate it).
    let expectedBodyBytes: Int
    var body = Data()
    var bodyBytes = 0
    var bodyTooLarge = false
    /// The responder has been given the request.
    var dispatched = false
    /// Counted in `suspendedRequests` and not yet uncounted: the count drops when the
    /// access handler is called again, or when the request ends without that (the client
    /// closed the connection while it was suspended).
    var countedSuspended = false
    var generation = 0

    // MARK: Response (task → MHD's thread)
    var response: Response?

    // MARK: Parking (hang-up watcher's lock)
    /// The hang-up watcher's token for this request while its answer is deferred; 0 when not.
    var parkToken: UInt64 = 0
    /// The request's deferred answer, while it has one (cleared when it ends: the two
    /// refer to each other).
    var deferred: DeferredResponse?
    /// Set once the responder deferred its answer, so requests that never do skip the
    /// watcher's lock when they end.
    let deferralStarted = Atomic<Bool>(false)

    init(watcher: HangupWatcher, connection: ConnectionState, head: RequestHead, bodyLimit: Int,
         expectedBodyBytes: Int, clientAddress: String) {
        self.watcher = watcher
        self.connection = connection
        self.head = head
        self.clientAddress = clientAddress
        self.bodyLimit = bodyLimit
        self.expectedBodyBytes = expectedBodyBytes
    }
}

extension ConnectionLink {
    /// The responder's own answer, from its task: ends a deferral it started and did not
    /// use (the request no longer counts as parked), then finishes.
    func finishDirectly(with response: Response) {
        var response = response
        if response.deferral != nil {
            // A deferral of another request: a responder bug that must not hang this one.
            response = Response(status: 500, body: Data("a deferred answer of another request\n".utf8))
        }
        if deferralStarted.load(ordering: .acquiring) { watcher.deferral(of: self)?.retire() }
        finish(with: response)
    }

    /// Called by the request's task with the responder's answer: stores it, and either
    /// leaves it to MHD's thread (the task never left it) or resumes the connection. If
    /// `shutdown` has taken the connection over, the answer is dropped.
    func finish(with response: Response) {
        self.response = response
        if connection.transition(generation: generation, from: .running, to: .finishedInline) {
            return
        }
        if connection.transition(generation: generation, from: .suspended, to: .active) {
            MHD_resume_connection(connection.handle)
        }
    }
}
