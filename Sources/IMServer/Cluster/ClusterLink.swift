import IMProtocol
import IMStore
import Lifecycle
import Synchronization

/// What a server node does to work with the other nodes on its PostgreSQL database,
/// besides sharing the feeds (the store does that):
///
/// - **Ended logins** (logout, kick, password change, suspension, deletion) are logged by
///   the store in the transaction that ends them; before each request trusts a login,
///   `RevocationWatch` reads the log's new entries, so a login ended on node A is refused
///   on node B from its next request on. Notifications only make nodes look sooner (a
///   parked poll of an ended login answers 401 right away).
/// - **One parked poll per login** across nodes: a poll claims the login's poll for its
///   node (a row with a generation) unless this node holds the claim already; the other
///   nodes hear of the claim and end their polls of that login with 409.
///
/// A service: `run()` acts on what the other nodes announce until cancelled.
final class ClusterLink: Service {
    let name = "cluster-link"
    private let store: PostgresStore
    private let hub: EventHub
    private let authenticator: Authenticator
    /// Logins whose current poll claim this node holds, and its generation.
    private let held = Mutex<[Int64: Int64]>([:])
    private let events: AsyncStream<ClusterEvent>
    private let eventsInput: AsyncStream<ClusterEvent>.Continuation
    private static let heldCapacity = 100_000

    init(store: PostgresStore, hub: EventHub, authenticator: Authenticator) {
        self.store = store
        self.hub = hub
        self.authenticator = authenticator
        (events, eventsInput) = AsyncStream.makeStream(of: ClusterEvent.self, bufferingPolicy: .unbounded)
        store.cluster.observe { [eventsInput] in eventsInput.yield($0) }
    }

    /// The generation of this node's claim on the login's poll, claimed now unless held.
    func claimPoll(tokenID: Int64) async throws -> Int64 {
        if let generation = held.withLock({ $0[tokenID] }) { return generation }
        let generation = try await store.claimPoll(tokenID: tokenID)
        held.withLock { held in
            if held.count >= Self.heldCapacity { held.removeAll(keepingCapacity: true) }
            held[tokenID] = max(held[tokenID] ?? 0, generation)
        }
        return generation
    }

    /// Acts on the other nodes' announcements until cancelled.
    func run() async throws {
        for await event in events {
            switch event {
            case .claimed(let claims):
                held.withLock { held in for claim in claims { held[claim.tokenID] = nil } }
                hub.supersede(claims)
            case .revoked, .mayHaveMissed:
                // Read the log now, so parked polls of ended logins answer at once.
                try? await authenticator.catchUpRevocations()
            }
        }
    }

    /// The watch of the revocation log for this node's `Authenticator`.
    static func revocationWatch(_ store: PostgresStore) -> RevocationWatch {
        RevocationWatch(epoch: store.openedAtRevocationEpoch) { try await store.revocations(after: $0) }
    }

    /// Wakes the parked polls of logins another node ended (the `Authenticator` has
    /// dropped their cached sessions): woken, they check their login again and answer
    /// what the next request would.
    static func wake(_ hub: EventHub, for log: RevocationLog) {
        guard log.complete else {
            hub.wakeAll()
            return
        }
        for token in log.tokens { hub.wake(tokenID: token) }
        for user in log.users { hub.wake(userID: user) }
    }
}
