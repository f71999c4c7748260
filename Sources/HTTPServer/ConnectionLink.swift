import CMicroHTTPD
import Foundation
import Synchronization

/// One request's tie to its connection and server: MHD keeps it (retained) as the
/// request's context pointer from the first access-handler call until the request is
/// completed, and `Request` keeps it so `parked` can watch the connection.
///
/// `@unchecked Sendable`: the request fields (`head`, `body`, limits) are only touched on
/// MHD's thread for this connection, before the request is handed to its task;
/// `response` is written by the task before it hands the connection back
/// (`ConnectionState.transition`, acquire/release) and read by MHD's thread after (an
/// abandoned request's response is never read);
/// `task` is published through `taskState`; `parkToken`/`parkDepth` are guarded by the
/// hang-up watcher's lock.
final class ConnectionLink: @unchecked Sendable {
    /// Not the whole `ServerCore`: a request kept by the responder must not keep the
    /// responder alive through it.
    let watcher: HangupWatcher
    let connection: ConnectionState

    // MARK: Request being read (MHD's thread)
    let head: RequestHead
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

    // MARK: Cancellation of the request's task
    private var task: Task<Void, Never>?
    private let taskState = Atomic<Int>(TaskState.none)
    private enum TaskState {
        static let none = 0
        static let stored = 1
        static let cancelRequested = 2
    }

    // MARK: Parking (hang-up watcher's lock)
    var parkToken: UInt64 = 0
    var parkDepth = 0

    init(watcher: HangupWatcher, connection: ConnectionState, head: RequestHead, bodyLimit: Int,
         expectedBodyBytes: Int) {
        self.watcher = watcher
        self.connection = connection
        self.head = head
        self.bodyLimit = bodyLimit
        self.expectedBodyBytes = expectedBodyBytes
    }

    /// Keeps the request's task so a hang-up or shutdown can cancel it; if cancellation
    /// was asked for before the task existed, cancels it now.
    func store(task: Task<Void, Never>) {
        self.task = task
        let previous = taskState.compareExchange(
            expected: TaskState.none, desired: TaskState.stored, ordering: .acquiringAndReleasing)
        if !previous.exchanged { task.cancel() }
    }

    /// Cancels the request's task, now or as soon as it is stored.
    func cancelTask() {
        let previous = taskState.compareExchange(
            expected: TaskState.none, desired: TaskState.cancelRequested,
            ordering: .acquiringAndReleasing)
        if !previous.exchanged && previous.original == TaskState.stored {
            task?.cancel()
        }
    }
}

extension ConnectionLink {
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
