import IMProtocol
import IMStore
import Lifecycle

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
/// The records live in a `LoginAttemptStore`: in memory for one server (bounded, pruned
/// hourly), in the database when several server nodes share one, each check's records
/// changed in one transaction, so N nodes allow no more guesses than one. A check a node
/// never finished (it died while hashing) stops counting as in flight after two minutes.
final class LoginThrottle: Sendable {
    /// One admitted password check; `finish` it exactly once.
    struct Ticket: Sendable {
        let username: String
        let address: String
        /// The account logged in from this address lately (a trusted address of it).
        let trusted: Bool
    }

    /// What admitting a check decided.
    private enum Admission: Sendable {
        case admitted(trusted: Bool)
        /// Not now: the wait in milliseconds, and why.
        case refused(Int64, String)
    }

    private typealias Counter = LoginCounters.Counter

    private let limits: LoginLimits
    private let store: any LoginAttemptStore
    /// Milliseconds: monotonic in memory, the wall clock when nodes share the records.
    private let clock: @Sendable () -> Int64
    /// How long an address with a good login stays trusted by its account, and how many
    /// such addresses one account keeps.
    private static let trustLifetime: Int64 = 30 * 86_400_000
    private static let trustedPerAccount = 8
    private static let pendingLifetime: Int64 = 120_000

    init(limits: LoginLimits, store: any LoginAttemptStore, clock: @escaping @Sendable () -> Int64) {
        self.limits = limits
        self.store = store
        self.clock = clock
    }

    /// A throttle of one server, its records in memory, on the server's monotonic clock.
    convenience init(limits: LoginLimits, time: any TimeSource) {
        let clock: @Sendable () -> Int64 = { Int64(time.seconds * 1000) }
        self.init(limits: limits, store: MemoryLoginAttempts(clock: clock), clock: clock)
    }

    private var window: Int64 { Int64(limits.window * 1000) }

    /// Admits a password check of `username` from `address`, counted as pending; throws
    /// 429 with the wait when the pair, the address or the account may not try now.
    func begin(username: String, address: String) async throws -> Ticket {
        let now = clock()
        let (limits, window) = (self.limits, self.window)
        let admission: Admission
        do {
            admission = try await store.updateLoginCounters(
                username: username, address: address, waitingAtMost: limits.admissionWait,
                Self.admit(from: address, now, limits, window))
        } catch let error as PostgresError where error.kind == .lockTimeout {
            // Another check of the same records is being counted at this moment.
            admission = .refused(1000, "too many logins in progress")
        }
        switch admission {
        case .admitted(let trusted):
            return Ticket(username: username, address: address, trusted: trusted)
        case .refused(let milliseconds, let what):
            let whole = RetryAfter.seconds(Double(milliseconds) / 1000)
            throw APIError(.rateLimited, "\(what): try again in \(whole) s", retryAfter: whole)
        }
    }

    /// The admission of one check: admitted (counted as pending), or the wait and why.
    private static func admit(from address: String, _ now: Int64, _ limits: LoginLimits, _ window: Int64)
        -> @Sendable (inout LoginCounters) -> Admission
    {
        { counters in
            var pair = Self.fresh(counters.pair, now, window)
            var byAddress = Self.fresh(counters.address, now, window)
            var account = Self.fresh(counters.account, now, window)
            if pair.lockedUntil > now {
                return .refused(pair.lockedUntil - now, "too many failed logins")
            }
            if byAddress.failures >= limits.failuresPerAddress {
                return .refused(byAddress.firstFailure + window - now, "too many failed logins from this address")
            }
            let trusted = counters.trusted[address].map { now - $0 < Self.trustLifetime } ?? false
            if !trusted, account.failures + account.pending >= limits.failuresPerAccount {
                return .refused(account.firstFailure + window - now, "too many failed logins for this account")
            }
            // Checks in flight count as failures until they are done: never more guesses
            // running than failures left.
            if pair.failures + pair.pending >= limits.failuresPerUser || account.pending >= limits.inFlightPerAccount
                || byAddress.pending >= limits.inFlightPerAddress
            {
                return .refused(1000, "too many logins in progress")
            }
            pair.pending += 1
            byAddress.pending += 1
            account.pending += 1
            (pair.pendingSince, byAddress.pendingSince, account.pendingSince) = (now, now, now)
            (counters.pair, counters.address, counters.account) = (pair, byAddress, account)
            return .admitted(trusted: trusted)
        }
    }

    /// Ends an admitted check: a failure counts against the pair, the address and the
    /// account; a success clears the pair and trusts the address for this account.
    func finish(_ ticket: Ticket, succeeded: Bool) async throws {
        let now = clock()
        let (limits, window) = (self.limits, self.window)
        try await store.updateLoginCounters(username: ticket.username, address: ticket.address, waitingAtMost: nil) {
            counters in
            var pair = Self.fresh(counters.pair, now, window)
            var byAddress = Self.fresh(counters.address, now, window)
            var account = Self.fresh(counters.account, now, window)
            pair.pending = max(pair.pending - 1, 0)
            byAddress.pending = max(byAddress.pending - 1, 0)
            account.pending = max(account.pending - 1, 0)
            if succeeded {
                pair = Counter()
                counters.trusted[ticket.address] = now
                if counters.trusted.count > Self.trustedPerAccount,
                    let oldest = counters.trusted.min(by: { $0.value < $1.value })
                {
                    counters.trusted[oldest.key] = nil
                }
            } else {
                pair.failures += 1
                byAddress.failures += 1
                account.failures += 1
                let excess = pair.failures - limits.failuresPerUser
                if excess >= 0 {
                    let lock = min(limits.maxLockout, limits.baseLockout * Double(1 << min(excess, 20)))
                    pair.lockedUntil = now + Int64(lock * 1000)
                }
            }
            (counters.pair, counters.address, counters.account) = (pair, byAddress, account)
        }
    }

    /// Ends an admitted check that never ran (the hashing queue was full): its pending
    /// counts go, and nothing is recorded.
    func cancel(_ ticket: Ticket) async throws {
        try await store.updateLoginCounters(username: ticket.username, address: ticket.address, waitingAtMost: nil) {
            counters in
            counters.pair.pending = max(counters.pair.pending - 1, 0)
            counters.address.pending = max(counters.address.pending - 1, 0)
            counters.account.pending = max(counters.account.pending - 1, 0)
        }
    }

    /// A record that starts over once its window has passed (pending checks are kept,
    /// unless so old that their node must have died).
    private static func fresh(_ counter: Counter, _ now: Int64, _ window: Int64) -> Counter {
        var counter = counter
        if counter.pending > 0, now - counter.pendingSince > pendingLifetime { counter.pending = 0 }
        if now - counter.firstFailure > window, counter.lockedUntil <= now {
            counter = Counter(pending: counter.pending, firstFailure: now, pendingSince: counter.pendingSince)
        }
        return counter
    }

    /// Drops records older than the window, and trust older than its lifetime.
    func prune() async throws {
        let now = clock()
        try await store.pruneLoginCounters(
            staleBefore: now - window, now: now, trustedBefore: now - Self.trustLifetime)
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
