import CMicroHTTPD
import Foundation
import Synchronization

/// One request's tie to its connection and server: MHD keeps it (retained) as the
/// request's context pointer from the first access-handler call until the request is
/// completed, and `Request` keeps it so a deferred answer can find the connection.
///
/// `@unchecked Sendable`: the request fields (`head`, `body`, limits) are only touched on
/// MHD's thread for this connection, before the request is handed to its task; the
/// task's pending steps are under a lock of their own;
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
    /// Set when the admission is decided (at once, or after `checkedAdmission`).
    var bodyLimit: Int
    /// Waiting for `checkedAdmission(for:)`, with the connection suspended and none of
    /// the body read; the decision arrives in `decidedAdmission`.
    var awaitingAdmission = false
    /// The body as it arrived: grown piece by piece, never reserved ahead from a declared
    /// length (a client that only declares one must not make the server allocate it).
    var body = Data()
    var bodyBytes = 0
    /// Bytes of `body` counted in the server's buffered total (given back when the
    /// request ends or the body is dropped).
    var bufferedBytes = 0
    /// Why the rest of the body is dropped as it arrives and the request answered with an
    /// error once it has ended; nil while it is read.
    var bodyRefusal: BodyRefusal?
    /// The responder has been given the request.
    var dispatched = false
    /// Counted in `suspendedRequests` and not yet uncounted: the count drops when the
    /// access handler is called again, or when the request ends without that (the client
    /// closed the connection while it was suspended).
    var countedSuspended = false
    /// Counted in `unsentShutdownAnswers` until the request ends.
    var owesShutdownAnswer = false
    var generation = 0

    // MARK: Response (task → MHD's thread)
    var response: Response?

    // MARK: The task's steps (any thread → MHD's thread)
    /// Steps of the request's task waiting to run on MHD's thread, and whether the
    /// request is past running them (then they go to the global executor).
    private let steps = Mutex(Steps())

    private struct Steps {
        var jobs: [UnownedJob] = []
        var ended = false
    }

    // MARK: Parking (hang-up watcher's lock)
    /// The hang-up watcher's token for this request while its answer is deferred; 0 when not.
    var parkToken: UInt64 = 0
    /// The request's deferred answer, while it has one (cleared when it ends: the two
    /// refer to each other).
    var deferred: DeferredResponse?
    /// Set once the responder deferred its answer, so requests that never do skip the
    /// watcher's lock when they end.
    let deferralStarted = Atomic<Bool>(false)

    // MARK: Admission (the check's task → MHD's thread)
    /// The decision of `checkedAdmission(for:)`, stored before the connection is resumed.
    private let decision = Mutex<BodyAdmission?>(nil)

    /// Why a body is dropped.
    enum BodyRefusal {
        /// Past the request's limit: 413.
        case tooLarge
        /// Past the bytes the server buffers across all requests: 503.
        case serverFull
    }

    init(watcher: HangupWatcher, connection: ConnectionState, head: RequestHead, bodyLimit: Int,
         clientAddress: String) {
        self.watcher = watcher
        self.connection = connection
        self.head = head
        self.clientAddress = clientAddress
        self.bodyLimit = bodyLimit
    }

    /// Stores the checked admission (from the check's task).
    func decide(_ admission: BodyAdmission) { decision.withLock { $0 = admission } }

    /// Takes the checked admission (MHD's thread, once resumed).
    func takeDecision() -> BodyAdmission? { decision.withLock { $0.take() } }
}

/// The request's task runs on MHD's thread for its connection: it starts there, and when
/// something it waited for is done (a write committed, say), its next step is handed to
/// this executor, which resumes the connection so that MHD's thread runs it, instead of
/// waking a thread of the global pool to run it and then MHD's thread to send the answer
/// (which cost a send about as much CPU as the request itself: BENCHMARKS.md, "Event
/// feed"). Child tasks inherit the preference. Once the request is answered or abandoned,
/// steps still coming (a task outliving its request) go to the global executor.
extension ConnectionLink: TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        let step = UnownedJob(job)
        let kept = steps.withLock { steps -> Bool in
            guard !steps.ended else { return false }
            steps.jobs.append(step)
            return true
        }
        guard kept else {
            globalConcurrentExecutor.enqueue(ExecutorJob(step))
            return
        }
        if connection.stepReady(generation: generation) {
            MHD_resume_connection(connection.handle)
        }
    }

    /// Runs the task's pending steps (MHD's thread, inside the access handler).
    func runSteps() {
        while let step = steps.withLock({ $0.jobs.isEmpty ? nil : $0.jobs.removeFirst() }) {
            step.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    /// The request is answered, abandoned or over: steps from now on, and any still
    /// pending, run on the global executor.
    func endSteps() {
        let pending = steps.withLock { steps -> [UnownedJob] in
            steps.ended = true
            defer { steps.jobs = [] }
            return steps.jobs
        }
        for step in pending { globalConcurrentExecutor.enqueue(ExecutorJob(step)) }
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
        if connection.transition(generation: generation, from: .running, to: .finishedInline)
            || connection.transition(generation: generation, from: .jobPending, to: .finishedInline)
        {
            return
        }
        if connection.transition(generation: generation, from: .suspended, to: .active) {
            MHD_resume_connection(connection.handle)
        }
    }
}
