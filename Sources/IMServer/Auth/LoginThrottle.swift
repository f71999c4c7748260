import IMProtocol
import Lifecycle
import Synchronization

/// Slows password guessing without letting anyone lock a person out from elsewhere.
///
/// - Lock-outs are keyed on (account, address): after `failuresPerUser` failures one
///   address is locked out of one account for a time that doubles with each further
///   failure; the same account from other addresses is not.
/// - An address that fails `failuresPerAddress` times within the window (any accounts)
///   is refused for the rest of it.
/// - Across all addresses an account takes `failuresPerAccount` failures per window;
///   past that only addresses it logged in from successfully lately still get through.
/// - A check is counted before the password is hashed, as pending, and becomes a failure
///   or is cleared when the hash is done: parallel guesses are counted like serial ones,
///   and at most `inFlightPerAccount` and `inFlightPerAddress` checks run at once.
///
/// Every map is bounded: records older than the window are pruned hourly, and past
/// `capacity` the ones that lock nothing go first.
final class LoginThrottle: Sendable {
    /// One admitted password check; `finish` it exactly once.
    struct Ticket: Sendable {
        let username: String
        let address: String
    }

    private struct Counter {
        var failures = 0
        var pending = 0
        var firstFailure: Double
        var lockedUntil: Double = 0

        init(now: Double) { firstFailure = now }
    }

    private struct Pair: Hashable {
        var username: String
        var address: String
    }

    private struct State {
        var pairs: [Pair: Counter] = [:]
        var addresses: [String: Counter] = [:]
        var accounts: [String: Counter] = [:]
        /// Addresses each account logged in from, and when last (monotonic seconds).
        var trusted: [String: [String: Double]] = [:]
    }

    private let limits: LoginLimits
    private let time: any TimeSource
    private let state = Mutex(State())
    private let capacity = 100_000
    /// How long an address with a good login stays trusted by its account, and how many
    /// such addresses one account keeps.
    private let trustLifetime: Double = 30 * 86400
    private let trustedPerAccount = 8

    init(limits: LoginLimits, time: any TimeSource) {
        self.limits = limits
        self.time = time
    }

    /// Admits a password check of `username` from `address`, counted as pending; throws
    /// 429 with the wait when the pair, the address or the account may not try now.
    func begin(username: String, address: String) throws -> Ticket {
        let now = time.seconds
        let wait = state.withLock { state -> (Double, String)? in
            var pair = fresh(state.pairs[Pair(username: username, address: address)], now)
            var byAddress = fresh(state.addresses[address], now)
            var account = fresh(state.accounts[username], now)
            if pair.lockedUntil > now {
                return (pair.lockedUntil - now, "too many failed logins")
            }
            if byAddress.failures >= limits.failuresPerAddress {
                return (byAddress.firstFailure + limits.window - now, "too many failed logins from this address")
            }
            let trusted = (state.trusted[username]?[address]).map { now - $0 < trustLifetime } ?? false
            if !trusted, account.failures + account.pending >= limits.failuresPerAccount {
                return (account.firstFailure + limits.window - now, "too many failed logins for this account")
            }
            // Checks in flight count as failures until they are done: never more guesses
            // running than failures left.
            if pair.failures + pair.pending >= limits.failuresPerUser || account.pending >= limits.inFlightPerAccount
                || byAddress.pending >= limits.inFlightPerAddress
            {
                return (1, "too many logins in progress")
            }
            pair.pending += 1
            byAddress.pending += 1
            account.pending += 1
            state.pairs[Pair(username: username, address: address)] = pair
            state.addresses[address] = byAddress
            state.accounts[username] = account
            if state.pairs.count + state.accounts.count + state.addresses.count > 3 * capacity {
                Self.evict(&state, now: now)
            }
            return nil
        }
        if let (seconds, what) = wait {
            let whole = RetryAfter.seconds(seconds)
            throw APIError(.rateLimited, "\(what): try again in \(whole) s", retryAfter: whole)
        }
        return Ticket(username: username, address: address)
    }

    /// Ends an admitted check: a failure counts against the pair, the address and the
    /// account; a success clears the pair and trusts the address for this account.
    func finish(_ ticket: Ticket, succeeded: Bool) {
        let now = time.seconds
        let key = Pair(username: ticket.username, address: ticket.address)
        state.withLock { state in
            var pair = fresh(state.pairs[key], now)
            var byAddress = fresh(state.addresses[ticket.address], now)
            var account = fresh(state.accounts[ticket.username], now)
            pair.pending = max(pair.pending - 1, 0)
            byAddress.pending = max(byAddress.pending - 1, 0)
            account.pending = max(account.pending - 1, 0)
            if succeeded {
                state.pairs[key] = nil
                var trusted = state.trusted[ticket.username] ?? [:]
                trusted[ticket.address] = now
                if trusted.count > trustedPerAccount, let oldest = trusted.min(by: { $0.value < $1.value }) {
                    trusted[oldest.key] = nil
                }
                state.trusted[ticket.username] = trusted
            } else {
                pair.failures += 1
                byAddress.failures += 1
                account.failures += 1
                let excess = pair.failures - limits.failuresPerUser
                if excess >= 0 {
                    pair.lockedUntil = now + min(limits.maxLockout, limits.baseLockout * Double(1 << min(excess, 20)))
                }
                state.pairs[key] = pair
            }
            state.addresses[ticket.address] = byAddress
            state.accounts[ticket.username] = account
        }
    }

    /// Ends an admitted check that never ran (the hashing queue was full): its pending
    /// counts go, and nothing is recorded.
    func cancel(_ ticket: Ticket) {
        let key = Pair(username: ticket.username, address: ticket.address)
        state.withLock { state in
            state.pairs[key]?.pending -= 1
            state.addresses[ticket.address]?.pending -= 1
            state.accounts[ticket.username]?.pending -= 1
        }
    }

    /// A record that starts over once its window has passed (pending checks are kept).
    private func fresh(_ counter: Counter?, _ now: Double) -> Counter {
        guard var counter else { return Counter(now: now) }
        if now - counter.firstFailure > limits.window, counter.lockedUntil <= now {
            let pending = counter.pending
            counter = Counter(now: now)
            counter.pending = pending
        }
        return counter
    }

    /// Drops records older than the window, and trust older than its lifetime.
    func prune() {
        let now = time.seconds
        state.withLock { state in Self.prune(&state, now: now, window: limits.window, trust: trustLifetime) }
    }

    private static func prune(_ state: inout State, now: Double, window: Double, trust: Double) {
        func live(_ counter: Counter) -> Bool {
            counter.pending > 0 || now - counter.firstFailure < window || counter.lockedUntil > now
        }
        state.pairs = state.pairs.filter { live($0.value) }
        state.addresses = state.addresses.filter { live($0.value) }
        state.accounts = state.accounts.filter { live($0.value) }
        state.trusted = state.trusted.compactMapValues { addresses in
            let kept = addresses.filter { now - $0.value < trust }
            return kept.isEmpty ? nil : kept
        }
    }

    /// Past the capacity: drop what is stale, then what locks nothing.
    private static func evict(_ state: inout State, now: Double) {
        prune(&state, now: now, window: 0, trust: .infinity)
    }
}

/// A wait in whole seconds for `Retry-After`: at least 1, and clamped so that no
/// configuration (a tiny rate, a huge lock-out) can overflow the conversion.
enum RetryAfter {
    static func seconds(_ wait: Double) -> Int {
        guard wait.isFinite else { return 86_400 }
        return Int(min(max(wait.rounded(.up), 1), 86_400))
    }
}
