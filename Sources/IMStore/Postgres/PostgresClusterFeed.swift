import Dispatch
import IMProtocol
import Lifecycle
import Synchronization

/// What a node hears of the other nodes sharing its database, besides their feed commits
/// (which go to the feed observers): poll claims and ended logins.
public enum ClusterEvent: Sendable, Equatable {
    /// Another node holds these logins' event polls now (read from `poll_claims`): a poll
    /// parked here with an older claim ends (409).
    case claimed([PollClaim])
    /// Logins may have been ended on another node: read the revocation log.
    case revoked
    /// Notifications may have been lost (the listener reconnected): read the log again.
    case mayHaveMissed
}

/// A PostgreSQL store's ear on the other nodes: a service that listens on the cluster
/// channel (`PostgresListener`) and acts on what the tables say, never on what a
/// notification says (`ClusterNotice`: any role that may connect can send one).
///
/// A notification only makes the node look, and many of them make it look once: they are
/// gathered in an inbox that the service's loop empties one read at a time.
///
/// - **Feed** (`f`): the node reads the feed clock and, up to it, which feeds the events
///   it has not heard of reached (`PostgresStore+ClusterReads.swift`), and hands them to
///   the store's `FeedOrder`, so the feed observers hear of them in position order. A
///   notice naming a range past the clock is refused (counted in `refusedNotices`).
/// - **Claims** (`c`): the node reads the named logins' rows of `poll_claims` and tells
///   its observers of those another node holds; the rest are refused.
/// - **Revocations** (`r`): the observers read the revocation log (the server does).
///
/// After a (re)connection, which may have lost notifications, it reads the feed clock
/// and tells the observers to look again (`FeedOrder.resync`). A range of this node that
/// waits longer than `maxGapWait` for the one before it is caught up by a read.
public final class PostgresClusterFeed: Service {
    public let name = "postgres-cluster-feed"
    private let listener: PostgresListener?
    private let setupError: (any Error)?
    private let node: String
    private let order: FeedOrder
    private let pool: PostgresPool
    private let time: any TimeSource
    private let observers = Mutex<[@Sendable (ClusterEvent) -> Void]>([])
    private let inbox = Mutex(Inbox())
    private let wakeups: AsyncStream<Void>
    private let wakeupsInput: AsyncStream<Void>.Continuation
    private let refused = Atomic<Int>(0)
    /// How long a committed range may wait for the gap before it to fill.
    let maxGapWait: Duration = .seconds(2)
    /// Positions read from the tables at most at once.
    static let positionsPerRead: Int64 = 512
    /// Logins whose claims wait to be read at most; past it the oldest notices are dropped
    /// (a real one lost so costs a second parked poll of one login until its time is up).
    static let pendingClaimsCapacity = 100_000

    /// What the notifications heard since the loop last looked ask it to do.
    private struct Inbox {
        var missed = false
        /// The newest position a feed notice named.
        var feedHint: Int64?
        var claims: Set<Int64> = []
        var revoked = false
        /// A wake-up is on its way to the loop.
        var scheduled = false
    }

    init(connection: PostgresConfiguration, node: String, order: FeedOrder, pool: PostgresPool, time: any TimeSource) {
        self.node = node
        self.order = order
        self.pool = pool
        self.time = time
        (wakeups, wakeupsInput) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        do {
            listener = try PostgresListener(
                configuration: PostgresListener.Configuration(connection: connection, channels: [ClusterNotice.channel]),
                time: time)
            setupError = nil
        } catch {
            listener = nil
            setupError = error
        }
        listener?.observe { [weak self] in self?.heard($0) }
    }

    /// Calls `observer` for every claim and revocation the tables confirm (on the
    /// service's task, in order). Add observers before `run()`.
    public func observe(_ observer: @escaping @Sendable (ClusterEvent) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    /// What the listener has done, for metrics.
    public var listenerStatistics: PostgresListener.Statistics { listener?.statistics ?? .init() }

    /// Notifications refused: malformed, or naming what the tables do not hold.
    public var refusedNotices: Int { refused.load(ordering: .relaxed) }

    /// Listens and acts until cancelled.
    public func run() async throws {
        guard let listener else { throw setupError ?? StoreError.internalFailure("no listener") }
        await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await listener.run() }
            group.addTask { [self] in await watchGaps() }
            for await _ in wakeups {
                if Task.isCancelled { break }
                await handle(takeInbox())
            }
            group.cancelAll()
        }
    }

    /// Files one notification in the inbox (the listener's thread; short).
    private func heard(_ wakeup: ClusterWakeup) {
        var notice: ClusterNotice?
        if case .notification(let notification) = wakeup {
            notice = ClusterNotice(notification.payload)
            if notice == nil {
                refused.add(1, ordering: .relaxed)
                return
            }
            if notice?.node == node { return }
        }
        let wake = inbox.withLock { inbox -> Bool in
            switch notice {
            case nil: inbox.missed = true
            case .feed(_, _, let last)?: inbox.feedHint = max(inbox.feedHint ?? 0, last)
            case .claims(_, let claims)?:
                for claim in claims where inbox.claims.count < Self.pendingClaimsCapacity {
                    inbox.claims.insert(claim.tokenID)
                }
            case .revoked?: inbox.revoked = true
            }
            defer { inbox.scheduled = true }
            return !inbox.scheduled
        }
        if wake { wakeupsInput.yield() }
    }

    private func takeInbox() -> Inbox {
        inbox.withLock { inbox in
            defer { inbox = Inbox() }
            return inbox
        }
    }

    private func handle(_ work: Inbox) async {
        if work.missed {
            await resync()
            tell(.mayHaveMissed)
        }
        if let hint = work.feedHint, hint > order.through {
            await catchUp(hint: hint)
        }
        if !work.claims.isEmpty {
            await confirmClaims(Array(work.claims))
        }
        if work.revoked { tell(.revoked) }
    }

    /// Reads from the tables what was committed after what this node has told, up to the
    /// feed clock, and tells it; a `hint` past the clock is refused. Tried again while the
    /// database is away.
    private func catchUp(hint: Int64?) async {
        while !Task.isCancelled {
            do {
                var clock: Int64
                repeat {
                    let after = order.through
                    let read = try await pool.withConnection { connection in
                        try PostgresStore.committedFeeds(after: after, atMost: Self.positionsPerRead, connection)
                    }
                    clock = read.clock
                    order.caughtUp(through: read.through, entries: read.entries)
                } while order.through < clock && !Task.isCancelled
                if let hint, hint > clock { refused.add(1, ordering: .relaxed) }
                return
            } catch {
                do { try await time.sleep(for: .milliseconds(200)) } catch { return }
            }
        }
    }

    /// Tells the observers of the claims another node holds among `tokens`.
    private func confirmClaims(_ tokens: [Int64]) async {
        do {
            let held = try await pool.withConnection { [node] connection in
                try PostgresStore.pollClaims(of: tokens, heldElsewhereThan: node, connection)
            }
            if held.count < tokens.count { refused.add(tokens.count - held.count, ordering: .relaxed) }
            if !held.isEmpty { tell(.claimed(held)) }
        } catch {
            // The database is away: polls parked here keep their claims until it is back,
            // or their time is up.
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

    /// Reads what the gap holds when a range has waited too long for the one before it.
    private func watchGaps() async {
        while !Task.isCancelled {
            do { try await time.sleep(for: .milliseconds(500)) } catch { return }
            if let waited = order.waitingFor(), waited > maxGapWait {
                let wake = inbox.withLock { inbox -> Bool in
                    inbox.feedHint = max(inbox.feedHint ?? 0, order.through + 1)
                    defer { inbox.scheduled = true }
                    return !inbox.scheduled
                }
                if wake { wakeupsInput.yield() }
            }
        }
    }

    private func tell(_ event: ClusterEvent) {
        for observer in observers.withLock({ $0 }) { observer(event) }
    }
}
