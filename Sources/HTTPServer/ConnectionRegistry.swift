import Foundation
import Glibc
import Lifecycle
import Synchronization

/// The open connections, how many each address holds, and the reaper that closes those
/// that run past a deadline: late request headers (slowloris; MHD's idle timeout does not
/// stop a client that sends one byte a second), a body that trickles in, a response the
/// client does not take.
///
/// The lock is taken when a connection opens or closes, once a second by the reaper,
/// and by `shutdown`; never per request. The reaper shuts sockets down under it, and
/// the closed notification takes it before MHD closes the socket, so a closed (and maybe
/// reused) descriptor is never touched.
///
/// The reaper is a thread that ticks on the real clock and compares deadlines with the
/// server's time source: it keeps working when the cooperative pool is saturated (as it
/// would be under the very attacks it stops), and a test moving a `ManualTime` sees the
/// connection cut within a tick.
final class ConnectionRegistry: Sendable {
    private struct State {
        var connections: [ObjectIdentifier: ConnectionState] = [:]
        /// Open connections per peer address (trusted proxies not counted).
        var perAddress: [String: Int] = [:]
        /// Addresses whose refusal was logged while they stay at the limit.
        var refusalLogged: Set<String> = []
    }

    private let state = Mutex(State())
    private let reaperRunning = Atomic<Bool>(false)
    private let reaperStop = DispatchSemaphore(value: 0)
    private let reaperDone = DispatchSemaphore(value: 0)
    private let counters: ServerCounters
    private let time: any TimeSource
    private let log: @Sendable (String) -> Void
    private let perAddressLimit: Int
    private let timeouts: [ConnectionState.Deadline: Int64]

    init(configuration: HTTPServerConfiguration, time: any TimeSource, counters: ServerCounters) {
        func nanos(_ seconds: Int) -> Int64 { Int64(min(max(seconds, 1), 86_400)) * 1_000_000_000 }
        self.timeouts = [
            .headers: nanos(configuration.headerTimeout), .body: nanos(configuration.bodyTimeout),
            .send: nanos(configuration.sendTimeout),
        ]
        self.perAddressLimit = max(configuration.connectionsPerAddress, 1)
        self.time = time
        self.log = configuration.errorLog
        self.counters = counters
    }

    /// Now on the server's time source, in nanoseconds.
    func now() -> Int64 {
        let elapsed = time.elapsed.components
        return elapsed.seconds * 1_000_000_000 + elapsed.attoseconds / 1_000_000_000
    }

    /// Starts `kind`'s time limit for `connection`, from now.
    func startDeadline(_ kind: ConnectionState.Deadline, for connection: ConnectionState) {
        connection.setDeadline(kind, at: now() + (timeouts[kind] ?? 0))
    }

    /// Registers a new connection; false when its address already holds as many
    /// connections as allowed (the caller then shuts it).
    func add(_ connection: ConnectionState) -> Bool {
        startDeadline(.headers, for: connection)
        let address = connection.peerAddress
        let (admitted, logRefusal) = state.withLock { state -> (Bool, Bool) in
            state.connections[ObjectIdentifier(connection)] = connection
            guard !connection.peerIsTrustedProxy else { return (true, false) }
            let open = state.perAddress[address, default: 0] + 1
            state.perAddress[address] = open
            guard open > perAddressLimit else { return (true, false) }
            return (false, state.refusalLogged.insert(address).inserted)
        }
        counters.openConnections.add(1, ordering: .relaxed)
        if !admitted {
            counters.refusedPerAddress.add(1, ordering: .relaxed)
            if logRefusal {
                log("refusing connections from \(address): it holds \(perAddressLimit) already "
                    + "(connections_per_address); logged once while it stays at the limit")
            }
        }
        return admitted
    }

    func remove(_ connection: ConnectionState) {
        let address = connection.peerAddress
        let removed = state.withLock { state -> Bool in
            guard state.connections.removeValue(forKey: ObjectIdentifier(connection)) != nil else { return false }
            if !connection.peerIsTrustedProxy, let open = state.perAddress[address] {
                state.perAddress[address] = open > 1 ? open - 1 : nil
                if open - 1 < perAddressLimit { state.refusalLogged.remove(address) }
            }
            return true
        }
        if removed { counters.openConnections.subtract(1, ordering: .relaxed) }
    }

    /// Starts a thread that checks deadlines about once a second.
    func startReaper() {
        let thread = Thread { [self] in
            // Waiting on the semaphore is the tick; a signal means stop.
            while reaperStop.wait(timeout: .now() + .seconds(1)) == .timedOut {
                reapLate()
            }
            reaperDone.signal()
        }
        thread.name = "http-deadline-reaper"
        thread.stackSize = 128 * 1024
        reaperRunning.store(true, ordering: .releasing)
        thread.start()
    }

    /// Stops the reaper thread and waits for it.
    func stopReaper() {
        guard reaperRunning.exchange(false, ordering: .acquiringAndReleasing) else { return }
        reaperStop.signal()
        reaperDone.wait()
    }

    /// Shuts down every connection whose deadline has passed; MHD then sees the socket
    /// fail and closes the connection itself.
    func reapLate() {
        let now = now()
        state.withLock { state in
            for connection in state.connections.values {
                let deadline = connection.deadline.load(ordering: .acquiring)
                guard deadline != 0, deadline <= now else { continue }
                let kind = ConnectionState.Deadline(rawValue: connection.deadlineKind.load(ordering: .relaxed))
                // A stage that ends right now wins, and goes on.
                guard connection.deadline.compareExchange(
                    expected: deadline, desired: 0, ordering: .relaxed
                ).exchanged else { continue }
                // Counted first: whoever sees the connection end sees the count.
                switch kind {
                case .body: counters.bodyTimeouts.add(1, ordering: .relaxed)
                case .send: counters.sendTimeouts.add(1, ordering: .relaxed)
                case .headers, nil: counters.headerTimeouts.add(1, ordering: .relaxed)
                }
                shutdown(connection.fd, Int32(SHUT_RDWR))
            }
        }
    }

    /// For `shutdown`: takes over every request whose responder is still at work and
    /// returns the suspended connections among them, which the caller must resume
    /// (outside this lock: MHD's resume takes MHD's own lock, which MHD may hold while it
    /// notifies us).
    func abandonUnansweredRequests() -> [ConnectionState] {
        state.withLock { state in
            state.connections.values.filter { $0.abandonRequest() }
        }
    }
}
