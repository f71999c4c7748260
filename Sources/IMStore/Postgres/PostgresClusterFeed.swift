import Dispatch
import IMProtocol
import Lifecycle
import Synchronization

/// What a node hears of the other nodes sharing its database, besides their feed commits
/// (which go to the feed observers): poll claims and ended logins.
public enum ClusterEvent: Sendable, Equatable {
    /// Another node claimed these logins' event polls: a poll parked here with an older
    /// claim ends (409).
    case claimed([PollClaim])
    /// Logins were ended on another node, up to this revocation epoch: read the log.
    case revoked(epoch: Int64)
    /// Notifications may have been lost (the listener reconnected): read the log again.
    case mayHaveMissed
}

/// A PostgreSQL store's ear on the other nodes: a service that listens on the cluster
/// channel (`PostgresListener`), hands their feed commits to the store's `FeedOrder` (so
/// the feed observers hear of them in position order) and their claims and revocations
/// to its own observers (the server).
///
/// Its loop takes the listener's wake-ups one at a time, in the order they came: after a
/// (re)connection, which may have lost notifications, it reads the feed clock and tells
/// the observers to look again (`FeedOrder.resync`). A range that waits longer than
/// `maxGapWait` for the one before it (which should never happen while listening) is
/// treated the same way.
public final class PostgresClusterFeed: Service {
    public let name = "postgres-cluster-feed"
    private let listener: PostgresListener?
    private let setupError: (any Error)?
    private let node: String
    private let order: FeedOrder
    private let pool: PostgresPool
    private let time: any TimeSource
    private let observers = Mutex<[@Sendable (ClusterEvent) -> Void]>([])
    private let wakeups: AsyncStream<ClusterWakeup>
    private let wakeupsInput: AsyncStream<ClusterWakeup>.Continuation
    /// Parts of a feed notice of several payloads, until its last.
    private let partial = Mutex<[String: [ClusterNotice.Entry]]>([:])
    /// How long a committed range may wait for the gap before it to fill.
    let maxGapWait: Duration = .seconds(2)

    init(connection: PostgresConfiguration, node: String, order: FeedOrder, pool: PostgresPool, time: any TimeSource) {
        self.node = node
        self.order = order
        self.pool = pool
        self.time = time
        (wakeups, wakeupsInput) = AsyncStream.makeStream(of: ClusterWakeup.self, bufferingPolicy: .unbounded)
        do {
            listener = try PostgresListener(
                configuration: PostgresListener.Configuration(connection: connection, channels: [ClusterNotice.channel]),
                time: time)
            setupError = nil
        } catch {
            listener = nil
            setupError = error
        }
        listener?.observe { [wakeupsInput] in wakeupsInput.yield($0) }
    }

    /// Calls `observer` for every claim and revocation another node announces (on the
    /// service's task, in order). Add observers before `run()`.
    public func observe(_ observer: @escaping @Sendable (ClusterEvent) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    /// What the listener has done, for metrics.
    public var listenerStatistics: PostgresListener.Statistics { listener?.statistics ?? .init() }

    /// Listens and hands on until cancelled.
    public func run() async throws {
        guard let listener else { throw setupError ?? StoreError.internalFailure("no listener") }
        await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await listener.run() }
            group.addTask { [self] in await watchGaps() }
            for await wakeup in wakeups {
                if Task.isCancelled { break }
                await handle(wakeup)
            }
            group.cancelAll()
        }
    }

    private func handle(_ wakeup: ClusterWakeup) async {
        switch wakeup {
        case .mayHaveMissed:
            partial.withLock { $0 = [:] }
            await resync()
            tell(.mayHaveMissed)
        case .notification(let notification):
            guard let notice = ClusterNotice(notification.payload), notice.node != node else { return }
            switch notice {
            case .feed(let node, let first, let last, let entries, let more):
                let all = partial.withLock { partial -> [ClusterNotice.Entry]? in
                    partial[node, default: []] += entries
                    if more { return nil }
                    return partial.removeValue(forKey: node)
                }
                guard let all else { return }
                let feedEntries = all.map { FeedEntry(position: $0.position, recipients: $0.recipients) }
                order.arrived(first: first, last: last, feedEntries.isEmpty ? nil : FeedUpdate(entries: feedEntries))
            case .claims(_, let claims):
                tell(.claimed(claims))
            case .revoked(_, let epoch):
                tell(.revoked(epoch: epoch))
            }
        }
    }

    /// Counts everything up to the feed clock as told: read after listening started, so
    /// every commit after it will be heard of. Tried again while the database is away.
    private func resync() async {
        while !Task.isCancelled {
            do {
                let position = try await pool.withConnection { connection in
                    try connection.first("SELECT position FROM feed_clock") { try $0.int(0) } ?? 0
                }
                order.resync(through: position)
                return
            } catch {
                do { try await time.sleep(for: .milliseconds(200)) } catch { return }
            }
        }
    }

    /// Resyncs when a range has waited too long for the one before it.
    private func watchGaps() async {
        while !Task.isCancelled {
            do { try await time.sleep(for: .milliseconds(500)) } catch { return }
            if let waited = order.waitingFor(), waited > maxGapWait { wakeupsInput.yield(.mayHaveMissed) }
        }
    }

    private func tell(_ event: ClusterEvent) {
        for observer in observers.withLock({ $0 }) { observer(event) }
    }
}
