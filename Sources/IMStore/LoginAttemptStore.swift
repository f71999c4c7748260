/// The records of login throttling for one password check: failures, checks in flight
/// and lock-outs of the (account, address) pair, of the address and of the account, and
/// the addresses the account logged in from lately. Times are milliseconds of the
/// throttle's clock.
public struct LoginCounters: Sendable, Equatable {
    /// One record.
    public struct Counter: Sendable, Equatable {
        public var failures = 0
        public var pending = 0
        public var firstFailure: Int64 = 0
        public var lockedUntil: Int64 = 0
        /// When `pending` last went up: checks a node never finished (it died) stop
        /// counting after a while.
        public var pendingSince: Int64 = 0

        public init(
            failures: Int = 0, pending: Int = 0, firstFailure: Int64 = 0, lockedUntil: Int64 = 0, pendingSince: Int64 = 0
        ) {
            self.failures = failures
            self.pending = pending
            self.firstFailure = firstFailure
            self.lockedUntil = lockedUntil
            self.pendingSince = pendingSince
        }

        /// True when it records nothing (it need not be kept).
        public var isEmpty: Bool { failures == 0 && pending == 0 && lockedUntil == 0 }
    }

    public var pair: Counter
    public var address: Counter
    public var account: Counter
    /// Addresses of the account's recent good logins, and when.
    public var trusted: [String: Int64]

    public init(pair: Counter = Counter(), address: Counter = Counter(), account: Counter = Counter(), trusted: [String: Int64] = [:]) {
        self.pair = pair
        self.address = address
        self.account = account
        self.trusted = trusted
    }
}

/// Where login throttling keeps its records: in memory for one server, in the database
/// when several server nodes share one, so N nodes do not allow N times the guesses.
public protocol LoginAttemptStore: Sendable {
    /// Runs `change` on the records of `username` from `address` with no other change of
    /// them in between, and keeps what it leaves. With `waitingAtMost`, a store that must
    /// wait longer for another change of them to finish gives up with
    /// `PostgresError.lockTimeout` (so a burst of checks of one account cannot hold the
    /// database's sessions).
    func updateLoginCounters<T: Sendable>(
        username: String, address: String, waitingAtMost: Duration?,
        _ change: @escaping @Sendable (inout LoginCounters) -> T
    ) async throws -> T

    /// Forgets records older than `staleBefore` that lock nothing and have nothing in
    /// flight, and trust older than `trustedBefore`.
    func pruneLoginCounters(staleBefore: Int64, now: Int64, trustedBefore: Int64) async throws
}
