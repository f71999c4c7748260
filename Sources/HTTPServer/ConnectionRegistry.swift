import Foundation
import Glibc
import Synchronization

/// The open connections, and the reaper that closes those whose request headers are
/// late (slow-header attacks: MHD's idle timeout does not stop a client that sends one
/// byte a second).
///
/// The lock is taken when a connection opens or closes, once a second by the reaper,
/// and by `shutdown`; never per request. The reaper shuts sockets down under it, and
/// the closed notification takes it before MHD closes the socket, so a closed (and maybe
/// reused) descriptor is never touched.
final class ConnectionRegistry: Sendable {
    private let connections = Mutex<[ObjectIdentifier: ConnectionState]>([:])
    private let reaperRunning = Atomic<Bool>(false)
    private let reaperStop = DispatchSemaphore(value: 0)
    private let reaperDone = DispatchSemaphore(value: 0)
    private let counters: ServerCounters
    let headerTimeoutNanos: Int64

    init(headerTimeout: Int, counters: ServerCounters) {
        self.headerTimeoutNanos = Int64(max(headerTimeout, 1)) * 1_000_000_000
        self.counters = counters
    }

    /// A deadline `headerTimeout` seconds from now.
    func nextHeaderDeadline() -> Int64 { MonotonicClock.nanoseconds() + headerTimeoutNanos }

    func add(_ connection: ConnectionState) {
        connections.withLock { connections in
            connections[ObjectIdentifier(connection)] = connection
        }
        counters.openConnections.add(1, ordering: .relaxed)
    }

    func remove(_ connection: ConnectionState) {
        let removed = connections.withLock { $0.removeValue(forKey: ObjectIdentifier(connection)) }
        if removed != nil { counters.openConnections.subtract(1, ordering: .relaxed) }
    }

    /// Starts a thread that checks header deadlines about once a second.
    func startReaper() {
        let thread = Thread { [self] in
            // Waiting on the semaphore is the tick; a signal means stop.
            while reaperStop.wait(timeout: .now() + .seconds(1)) == .timedOut {
                reapLateHeaders()
            }
            reaperDone.signal()
        }
        thread.name = "http-header-reaper"
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

    /// Shuts down every connection whose header deadline has passed; MHD then sees the
    /// socket fail and closes the connection itself.
    func reapLateHeaders() {
        let now = MonotonicClock.nanoseconds()
        connections.withLock { connections in
            for connection in connections.values {
                let deadline = connection.headerDeadline.load(ordering: .relaxed)
                guard deadline != 0, deadline <= now else { continue }
                // A request whose headers complete right now wins, and is served.
                guard connection.headerDeadline.compareExchange(
                    expected: deadline, desired: 0, ordering: .relaxed
                ).exchanged else { continue }
                // Counted first: whoever sees the connection end sees the count.
                counters.headerTimeouts.add(1, ordering: .relaxed)
                shutdown(connection.fd, Int32(SHUT_RDWR))
            }
        }
    }

    /// For `shutdown`: takes over every request whose responder is still at work and
    /// returns the suspended connections among them, which the caller must resume
    /// (outside this lock: MHD's resume takes MHD's own lock, which MHD may hold while it
    /// notifies us).
    func abandonUnansweredRequests() -> [ConnectionState] {
        connections.withLock { connections in
            connections.values.filter { $0.abandonRequest() }
        }
    }
}

/// The monotonic clock at the resolution of the scheduler tick: cheap enough to read per
/// request, precise enough for second-scale deadlines.
enum MonotonicClock {
    static func nanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}
