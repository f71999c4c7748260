import CMicroHTTPD
import Glibc
import Synchronization

/// What the server tracks of one TCP connection, from MHD's "started" notification to
/// its "closed" one. Shared by MHD's thread for the connection, the request tasks, the
/// header-timeout reaper and `shutdown`.
///
/// `@unchecked Sendable`: `handle` is only used to resume the connection, and only by
/// whoever wins `claimResume` while the connection is suspended (MHD keeps a suspended
/// connection alive); everything else is immutable or atomic.
final class ConnectionState: @unchecked Sendable {
    /// MHD's connection; valid until the closed notification.
    let handle: OpaquePointer
    let fd: Int32
    let remoteAddress: String
    /// When the current request's headers must be complete (monotonic nanoseconds), or 0
    /// while no header block is awaited (a request is being served).
    let headerDeadline: Atomic<Int64>
    /// `generation << 2 | Phase`: which request of this connection is being served and
    /// whether its connection is suspended. The generation keeps a late task of an
    /// abandoned request from resuming a later one.
    private let phase = Atomic<Int>(0)

    enum Phase: Int {
        /// Reading a request, or sending a response.
        case active = 0
        /// Suspended while the responder works.
        case suspended = 1
        /// Suspended, and taken over by `shutdown`, which resumed it and answers 503.
        case abandoned = 2
    }

    init(handle: OpaquePointer, headerDeadline: Int64) {
        self.handle = handle
        self.fd = sb_mhd_connection_fd(handle)
        self.remoteAddress = ConnectionState.describe(sb_mhd_client_address(handle))
        self.headerDeadline = Atomic(headerDeadline)
    }

    /// Marks the connection suspended for a new request; returns the request's generation.
    /// Called on MHD's thread right before `MHD_suspend_connection`.
    func beginSuspension() -> Int {
        let generation = (phase.load(ordering: .relaxed) >> 2) + 1
        phase.store(generation << 2 | Phase.suspended.rawValue, ordering: .releasing)
        return generation
    }

    /// The phase MHD's thread sees when the access handler is called again after a resume.
    func currentPhase() -> Phase {
        Phase(rawValue: phase.load(ordering: .acquiring) & 3) ?? .active
    }

    /// Whether request `generation` is still suspended and not taken over.
    func isSuspended(generation: Int) -> Bool {
        phase.load(ordering: .acquiring) == generation << 2 | Phase.suspended.rawValue
    }

    /// Takes the right to resume the suspended request `generation`; true for exactly one
    /// caller (its task, or `shutdown` when `abandon` is true).
    func claimResume(generation: Int, abandon: Bool = false) -> Bool {
        let expected = generation << 2 | Phase.suspended.rawValue
        let next = generation << 2 | (abandon ? Phase.abandoned : Phase.active).rawValue
        return phase.compareExchange(
            expected: expected, desired: next, ordering: .acquiringAndReleasing
        ).exchanged
    }

    /// For `shutdown`: takes over the request suspended now, if any.
    func abandonSuspendedRequest() -> Bool {
        let current = phase.load(ordering: .acquiring)
        guard current & 3 == Phase.suspended.rawValue else { return false }
        return claimResume(generation: current >> 2, abandon: true)
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
