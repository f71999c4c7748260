import Dispatch
import IMProtocol
import SwitchboardCrypto
import Synchronization

/// Runs slow password hashing on its own threads, at most `width` at once, so logins
/// neither block Swift's cooperative pool nor use unbounded memory; at most `queueLimit`
/// waiting or running, so a flood is refused (503 with `Retry-After`) instead of
/// queueing without end; and fairly between clients, so that one client cannot fill the
/// queue for everyone else.
///
/// Each client (an address, its /64 for IPv6) has a queue of its own, and the threads take
/// the next hash from the clients in turn, so a client's hash waits behind at most one of
/// each other client's. When the queue is full, a client holding fewer hashes than the
/// one holding the most still gets in: that one's newest waiting hash is refused in its
/// place. So a newcomer is refused only when every client holds about as many as it
/// would (the queue is shared by more clients than it has room for).
final class HashingPool: Sendable {
    private struct Job {
        let client: String
        /// Does the work; returns what hands its result to the caller.
        let run: @Sendable () -> @Sendable () -> Void
        let refuse: @Sendable () -> Void
    }

    private struct State {
        /// Jobs waiting, per client, oldest first.
        var waiting: [String: [Job]] = [:]
        /// Clients with jobs waiting, in the order they are served.
        var turns: [String] = []
        /// Jobs waiting or running.
        var queued = 0
        var idleWorkers: [Int] = []

        /// The next job in turn; its client goes to the back when it has more.
        mutating func next() -> Job? {
            guard !turns.isEmpty else { return nil }
            let client = turns.removeFirst()
            var jobs = waiting[client] ?? []
            let job = jobs.removeFirst()
            if jobs.isEmpty {
                waiting[client] = nil
            } else {
                waiting[client] = jobs
                turns.append(client)
            }
            return job
        }

        /// Takes the newest waiting job of the client holding the most, if it holds at
        /// least two more than `client` does: room for `client`.
        mutating func pushOut(for client: String) -> Job? {
            let own = waiting[client]?.count ?? 0
            guard let (heaviest, jobs) = waiting.max(by: { $0.value.count < $1.value.count }),
                jobs.count >= own + 2
            else { return nil }
            var kept = jobs
            let job = kept.removeLast()
            waiting[heaviest] = kept
            queued -= 1
            return job
        }

        mutating func add(_ job: Job) {
            if waiting[job.client] == nil { turns.append(job.client) }
            waiting[job.client, default: []].append(job)
        }
    }

    private let queues: [DispatchQueue]
    private let state: Mutex<State>
    private let queueLimit: Int
    let hasher: PasswordHasher
    /// Password checks run (`verify`), for `/metrics`.
    let checks = Atomic<Int>(0)
    /// Hashes refused because the queue was full (newcomers, and those pushed out).
    let refused = Atomic<Int>(0)

    init(hasher: PasswordHasher, width: Int, queueLimit: Int) {
        self.hasher = hasher
        self.queueLimit = max(queueLimit, 1)
        let width = max(1, width)
        self.queues = (0..<width).map { DispatchQueue(label: "switchboard.password-hashing.\($0)") }
        self.state = Mutex(State(idleWorkers: Array(0..<width)))
    }

    /// A new hash of `password`, in `client`'s turn.
    func hash(_ password: String, for client: String) async throws -> String {
        try await run(for: client) { [hasher] in try hasher.hash(password) }
    }

    /// True when `password` matches `encoded`, checked in `client`'s turn.
    func verify(_ password: String, against encoded: String, for client: String) async throws -> Bool {
        try await run(for: client) { [self] in
            checks.add(1, ordering: .relaxed)
            return PasswordHasher.verify(password, against: encoded)
        }
    }

    /// Hashes waiting or running now.
    var queued: Int { state.withLock { $0.queued } }

    /// Runs `work` on a hashing thread in `client`'s turn; throws 503 when the queue is
    /// full and `client` holds as many as anyone.
    func run<T: Sendable>(for client: String, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let job = Job(
                client: client,
                run: {
                    let result = Result { try work() }
                    return { continuation.resume(with: result) }
                },
                refuse: { continuation.resume(throwing: Self.busy) })
            let (admitted, pushedOut, worker) = state.withLock { state -> (Bool, Job?, Int?) in
                var pushedOut: Job?
                if state.queued >= queueLimit {
                    pushedOut = state.pushOut(for: client)
                    guard pushedOut != nil else { return (false, nil, nil) }
                }
                state.queued += 1
                state.add(job)
                return (true, pushedOut, state.idleWorkers.popLast())
            }
            if let pushedOut {
                refused.add(1, ordering: .relaxed)
                pushedOut.refuse()
            }
            guard admitted else {
                refused.add(1, ordering: .relaxed)
                job.refuse()
                return
            }
            if let worker { queues[worker].async { self.work(on: worker) } }
        }
    }

    /// A hashing thread's loop: jobs in turn until none waits.
    private func work(on worker: Int) {
        while let job = state.withLock({ state -> Job? in
            guard let job = state.next() else {
                state.idleWorkers.append(worker)
                return nil
            }
            return job
        }) {
            let answer = job.run()
            // Off the count before the caller goes on, so its next check finds the room.
            state.withLock { $0.queued -= 1 }
            answer()
        }
    }

    private static let busy = APIError(
        .unavailable, "the server is busy checking passwords: try again in a moment", retryAfter: 1)
}
