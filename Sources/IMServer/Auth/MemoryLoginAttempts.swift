import IMStore
import Synchronization

/// Login throttling's records in memory, for a server that is the only one using its
/// database. Bounded: past `capacity` records of each kind, those that lock nothing and
/// have nothing in flight go first.
final class MemoryLoginAttempts: LoginAttemptStore {
    private typealias Counter = LoginCounters.Counter

    private struct Pair: Hashable {
        var username: String
        var address: String
    }

    private struct State {
        var pairs: [Pair: Counter] = [:]
        var addresses: [String: Counter] = [:]
        var accounts: [String: Counter] = [:]
        var trusted: [String: [String: Int64]] = [:]
    }

    private let state = Mutex(State())
    private let clock: @Sendable () -> Int64
    private let capacity: Int

    init(clock: @escaping @Sendable () -> Int64, capacity: Int = 100_000) {
        self.clock = clock
        self.capacity = capacity
    }

    func updateLoginCounters<T: Sendable>(
        username: String, address: String, waitingAtMost: Duration?,
        _ change: @escaping @Sendable (inout LoginCounters) -> T
    ) async throws -> T {
        let pair = Pair(username: username, address: address)
        let now = clock()
        return state.withLock { state in
            var counters = LoginCounters(
                pair: state.pairs[pair] ?? Counter(), address: state.addresses[address] ?? Counter(),
                account: state.accounts[username] ?? Counter(), trusted: state.trusted[username] ?? [:])
            let result = change(&counters)
            state.pairs[pair] = counters.pair.isEmpty ? nil : counters.pair
            state.addresses[address] = counters.address.isEmpty ? nil : counters.address
            state.accounts[username] = counters.account.isEmpty ? nil : counters.account
            state.trusted[username] = counters.trusted.isEmpty ? nil : counters.trusted
            if state.pairs.count + state.addresses.count + state.accounts.count > 3 * capacity {
                Self.keep(&state) { $0.pending > 0 || $0.lockedUntil > now }
            }
            return result
        }
    }

    func pruneLoginCounters(staleBefore: Int64, now: Int64, trustedBefore: Int64) async throws {
        state.withLock { state in
            Self.keep(&state) { $0.pending > 0 || $0.firstFailure >= staleBefore || $0.lockedUntil > now }
            state.trusted = state.trusted.compactMapValues { addresses in
                let kept = addresses.filter { $0.value >= trustedBefore }
                return kept.isEmpty ? nil : kept
            }
        }
    }

    private static func keep(_ state: inout State, _ live: (Counter) -> Bool) {
        state.pairs = state.pairs.filter { live($0.value) }
        state.addresses = state.addresses.filter { live($0.value) }
        state.accounts = state.accounts.filter { live($0.value) }
    }
}
