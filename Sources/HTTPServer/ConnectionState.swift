import CMicroHTTPD
import Glibc
import Synchronization

/// What the server tracks of one TCP connection, from MHD's "started" notification to
/// its "closed" one. Shared by MHD's thread for the connection, the request tasks, the
/// header-timeout reaper and `shutdown`.
///
/// `@unchecked Sendable`: `handle` is only used to resume the connection, and only by
/// whoever wins the `transition` out of `suspended` (MHD keeps a suspended connection
/// alive); `inHangupSet` is only touched under the hang-up watcher's lock; everything
/// else is immutable or atomic.
final class ConnectionState: @unchecked Sendable {
    /// MHD's connection; valid until the closed notification.
    let handle: OpaquePointer
    let fd: Int32
    /// The TCP peer's address as text (`127.0.0.1`, `::1`).
    let peerAddress: String
    /// The peer is one of the configured trusted proxies: its requests name their client
    /// in `X-Forwarded-For`, and it is exempt from the per-address connection limit.
    let peerIsTrustedProxy: Bool
    /// When the connection's current stage must be over (nanoseconds on the server's time
    /// source), or 0 while none is running: headers due, a body arriving, a response
    /// being taken. A request being answered or parked has none.
    let deadline = Atomic<Int64>(0)
    /// Which stage `deadline` bounds (`Deadline.rawValue`); written before it.
    let deadlineKind = Atomic<Int>(0)
    /// Whether the socket is in the hang-up watcher's epoll set (guarded by the watcher's
    /// lock): after its first park it stays there until the connection closes.
    var inHangupSet = false
    /// `generation << 3 | Phase`: which request of this connection is being answered and
    /// how far. The generation keeps a late task of an abandoned request from touching a
    /// later one.
    private let phase = Atomic<Int>(0)

    /// Where the request being answered is. Its task runs on MHD's thread (`running`):
    /// first when the request is complete, then each time what it waited for is done
    /// (`jobPending`: the connection is resumed to run the task's next step there). If it
    /// finishes (`finishedInline`) the response is queued at once; while it waits the
    /// connection is `suspended`. A deferred answer from elsewhere resumes it (`active`),
    /// and `shutdown` may take it over (`abandoned`).
    enum Phase: Int {
        /// Reading a request, or sending a response.
        case active = 0
        /// The responder's task is running on MHD's thread, or waits and the connection
        /// is not suspended yet.
        case running = 1
        /// The task finished; the response waits in the link for MHD's thread.
        case finishedInline = 2
        /// Suspended while the responder waits for something.
        case suspended = 3
        /// Taken over by `shutdown`, which has it resumed and answers 503.
        case abandoned = 4
        /// The task can go on: a step of it waits in the link for MHD's thread (resumed,
        /// if it was suspended).
        case jobPending = 5
    }

    /// The stages of a connection that must end in time.
    enum Deadline: Int {
        /// The next request's header block (slow headers, idle keep-alive).
        case headers = 1
        /// The whole request body, from the end of the headers (slow bodies).
        case body = 2
        /// The response, from when it is queued until the client has taken it (slow readers).
        case send = 3
    }

    init(handle: OpaquePointer, trustedProxies: [IPAddressRange]) {
        self.handle = handle
        self.fd = sb_mhd_connection_fd(handle)
        let peer = ConnectionState.describe(sb_mhd_client_address(handle))
        self.peerAddress = peer
        self.peerIsTrustedProxy = trustedProxies.contains { $0.contains(peer) }
    }

    /// Puts the connection under a deadline (`at` 0: none).
    func setDeadline(_ kind: Deadline, at nanoseconds: Int64) {
        deadlineKind.store(kind.rawValue, ordering: .relaxed)
        deadline.store(nanoseconds, ordering: .releasing)
    }

    /// Lifts the deadline: the server, not the client, is working now.
    func clearDeadline() {
        deadline.store(0, ordering: .releasing)
    }

    /// Starts a new request in `running`; returns its generation. MHD's thread only.
    func beginRequest() -> Int {
        let generation = (phase.load(ordering: .relaxed) >> 3) + 1
        phase.store(generation << 3 | Phase.running.rawValue, ordering: .releasing)
        return generation
    }

    /// The phase of the current request (acquiring what the task stored before it).
    func currentPhase() -> Phase {
        Phase(rawValue: phase.load(ordering: .acquiring) & 7) ?? .active
    }

    /// Moves request `generation` from one phase to another; true for exactly one of the
    /// parties racing for the same move (MHD's thread, the task, `shutdown`).
    func transition(generation: Int, from: Phase, to: Phase) -> Bool {
        phase.compareExchange(
            expected: generation << 3 | from.rawValue, desired: generation << 3 | to.rawValue,
            ordering: .acquiringAndReleasing
        ).exchanged
    }

    /// For `shutdown`: takes over the request being answered, if its responder is still
    /// at work. Returns true if the connection is suspended, and the caller must resume
    /// it; a request still `running` on MHD's thread resumes itself when it finds it
    /// cannot suspend, and one with a step pending was resumed already.
    func abandonRequest() -> Bool {
        while true {
            let current = phase.load(ordering: .acquiring)
            let generation = current >> 3
            switch Phase(rawValue: current & 7) {
            case .suspended:
                if transition(generation: generation, from: .suspended, to: .abandoned) { return true }
            case .running:
                if transition(generation: generation, from: .running, to: .abandoned) { return false }
            case .jobPending:
                if transition(generation: generation, from: .jobPending, to: .abandoned) { return false }
            default:
                return false
            }
        }
    }

    /// A step of request `generation`'s task is ready to run (from any thread): returns
    /// true when the caller must resume the suspended connection so that MHD's thread runs
    /// it; false when MHD's thread will find it anyway (running there, or resumed
    /// already) or the request is past running tasks (answered or abandoned).
    func stepReady(generation: Int) -> Bool {
        while true {
            let current = phase.load(ordering: .acquiring)
            guard current >> 3 == generation else { return false }
            switch Phase(rawValue: current & 7) {
            case .running:
                if transition(generation: generation, from: .running, to: .jobPending) { return false }
            case .suspended:
                if transition(generation: generation, from: .suspended, to: .jobPending) { return true }
            default:
                return false
            }
        }
    }

    /// Renders a peer address as text (`127.0.0.1`, `::1`); done once per connection.
    private static func describe(_ address: UnsafePointer<sockaddr>?) -> String {
        guard let address else { return "" }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = Int32(address.pointee.sa_family)
        let ok: Bool
        switch family {
        case AF_INET:
            ok = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                var addr = v4.pointee.sin_addr
                return inet_ntop(AF_INET, &addr, &buffer, socklen_t(buffer.count)) != nil
            }
        case AF_INET6:
            ok = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                var addr = v6.pointee.sin6_addr
                return inet_ntop(AF_INET6, &addr, &buffer, socklen_t(buffer.count)) != nil
            }
        default:
            ok = false
        }
        guard ok else { return "" }
        let length = buffer.firstIndex(of: 0) ?? buffer.count
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
