import Lifecycle
import Synchronization

/// Listens on PostgreSQL channels over a connection of its own and tells its observers of
/// every notification: the cross-node wake-ups of several server nodes on one database.
///
/// A service: `run()` connects, issues `LISTEN` for every channel, reports
/// `.mayHaveMissed`, then reports notifications as they arrive, until its task is
/// cancelled. When the connection is lost it reconnects at once, listens again and
/// reports `.mayHaveMissed` again, because whatever was sent in between is gone; when
/// connecting fails it waits `reconnectDelay`, doubling up to `maxReconnectDelay`.
///
/// It waits in `poll` on its own thread (the connection's socket and a wake-up pipe that
/// cancellation writes to), so neither the waiting nor libpq runs on the cooperative
/// pool. A dead peer that sends nothing is found by TCP keepalives
/// (`PostgresConfiguration.keepaliveIdle`).
public final class PostgresListener: ClusterWakeups, Service {
    /// Where to listen and how to reconnect.
    public struct Configuration: Sendable {
        /// The database (its own connection, outside any pool).
        public var connection: PostgresConfiguration
        /// Lower-case letters, digits and `_`, starting with a letter or `_`, at most 63.
        public var channels: [String]
        /// The wait after a failed connection attempt; doubled after each further one.
        public var reconnectDelay: Duration
        /// The longest wait between attempts.
        public var maxReconnectDelay: Duration

        /// A configuration with the default delays (100 ms, doubling up to 5 s).
        public init(
            connection: PostgresConfiguration, channels: [String], reconnectDelay: Duration = .milliseconds(100),
            maxReconnectDelay: Duration = .seconds(5)
        ) {
            self.connection = connection
            self.channels = channels
            self.reconnectDelay = reconnectDelay
            self.maxReconnectDelay = maxReconnectDelay
        }
    }

    /// What the listener has done, for metrics and tests.
    public struct Statistics: Sendable, Equatable {
        /// Sessions that reached `LISTEN` (1 + the reconnects).
        public var sessions = 0
        /// Notifications received.
        public var notifications = 0
        /// Connection attempts that failed.
        public var failedConnects = 0
        /// Why the latest session or attempt ended.
        public var lastError: String?
    }

    /// The service's name in logs.
    public let name = "postgres-listener"
    private let configuration: Configuration
    private let time: any TimeSource
    private let observers = Mutex<[@Sendable (ClusterWakeup) -> Void]>([])
    private let counts = Mutex(Statistics())

    /// Throws `PostgresError.invalidValue` for a channel name `LISTEN` would not take as is.
    public init(configuration: Configuration, time: any TimeSource = SystemTime()) throws {
        for channel in configuration.channels where !Self.isChannelName(channel) {
            throw PostgresError(
                kind: .invalidValue,
                message: "channel '\(channel)' is not lower-case letters, digits and _ (at most 63, not starting with a digit)",
                context: "LISTEN")
        }
        self.configuration = configuration
        self.time = time
    }

    /// Adds an observer (before `run()`, so it hears the first `mayHaveMissed`).
    public func observe(_ observer: @escaping @Sendable (ClusterWakeup) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    /// What it has done so far.
    public var statistics: Statistics { counts.withLock { $0 } }

    /// Listens until the task is cancelled; throws only when its wake-up pipe cannot be made.
    public func run() async throws {
        let thread = DedicatedThread(name: "postgres-listener")
        let wake = try WakePipe()
        var failures = 0
        while !Task.isCancelled {
            let sessionsBefore = statistics.sessions
            do {
                try await withTaskCancellationHandler {
                    try await thread.run { try self.listen(wake) }
                } onCancel: {
                    wake.signal()
                }
            } catch {
                counts.withLock { $0.lastError = "\(error)" }
            }
            if Task.isCancelled { break }
            if statistics.sessions > sessionsBefore {
                failures = 0  // it was listening: reconnect at once
            } else {
                failures += 1
                counts.withLock { $0.failedConnects += 1 }
                do {
                    try await time.sleep(for: delay(afterFailures: failures))
                } catch {
                    break
                }
            }
        }
        thread.stop()
        await thread.finished()
    }

    /// One session, on the listener's thread: returns when woken, throws when it breaks.
    private func listen(_ wake: WakePipe) throws {
        let connection = try PostgresConnection(configuration: configuration.connection)
        for channel in configuration.channels {
            try connection.executeScript("LISTEN \(channel)")  // validated in init
        }
        counts.withLock { $0.sessions += 1 }
        deliver(.mayHaveMissed)
        let handle = connection.handle
        while true {
            let notifications = handle.takeNotifications()
            if !notifications.isEmpty {
                counts.withLock { $0.notifications += notifications.count }
                for notification in notifications { deliver(.notification(notification)) }
            }
            guard try handle.waitForInput(orReadable: wake.readEnd) else { return }
            guard handle.consumeInput() else {
                throw PostgresError(kind: .connectionLost, message: handle.errorMessage, context: "listening on \(handle.target)")
            }
        }
    }

    private func deliver(_ wakeup: ClusterWakeup) {
        for observer in observers.withLock({ $0 }) { observer(wakeup) }
    }

    private func delay(afterFailures failures: Int) -> Duration {
        var delay = configuration.reconnectDelay
        for _ in 1..<max(1, failures) where delay < configuration.maxReconnectDelay { delay *= 2 }
        return min(delay, configuration.maxReconnectDelay)
    }

    static func isChannelName(_ name: String) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= 63, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first)
        else { return false }
        return name.utf8.allSatisfy { ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || $0 == UInt8(ascii: "_") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }
}
