import Lifecycle
import Synchronization

/// Slows password guessing: after too many failures an account is locked for a time
/// that doubles with each further failure, and a client address that fails too often is
/// refused for the rest of the window.
final class LoginThrottle: Sendable {
    private struct Record {
        var failures: Int
        var firstFailure: Double
        var lockedUntil: Double
    }

    private let limits: LoginLimits
    private let time: any TimeSource
    private let users = Mutex<[String: Record]>([:])
    private let addresses = Mutex<[String: Record]>([:])

    init(limits: LoginLimits, time: any TimeSource) {
        self.limits = limits
        self.time = time
    }

    /// Seconds until `username` from `address` may try again, or nil when it may now.
    func wait(username: String, address: String) -> Double? {
        let now = time.seconds
        let userWait = users.withLock { $0[username].map { $0.lockedUntil - now } }
        let addressWait = addresses.withLock { records -> Double? in
            guard let record = records[address], now - record.firstFailure < limits.window,
                record.failures >= limits.failuresPerAddress
            else { return nil }
            return record.firstFailure + limits.window - now
        }
        let longest = max(userWait ?? 0, addressWait ?? 0)
        return longest > 0 ? longest : nil
    }

    /// Counts a failed attempt.
    func failed(username: String, address: String) {
        let now = time.seconds
        users.withLock { records in
            var record = records[username] ?? Record(failures: 0, firstFailure: now, lockedUntil: 0)
            if now - record.firstFailure > limits.window {
                record = Record(failures: 0, firstFailure: now, lockedUntil: 0)
            }
            record.failures += 1
            let excess = record.failures - limits.failuresPerUser
            if excess >= 0 {
                let lock = min(limits.maxLockout, limits.baseLockout * Double(1 << min(excess, 20)))
                record.lockedUntil = now + lock
            }
            records[username] = record
        }
        addresses.withLock { records in
            var record = records[address] ?? Record(failures: 0, firstFailure: now, lockedUntil: 0)
            if now - record.firstFailure > limits.window {
                record = Record(failures: 0, firstFailure: now, lockedUntil: 0)
            }
            record.failures += 1
            records[address] = record
        }
    }

    /// Clears the account's failures after a good password.
    func succeeded(username: String) {
        _ = users.withLock { $0.removeValue(forKey: username) }
    }

    /// Drops records older than the window.
    func prune() {
        let now = time.seconds
        let window = limits.window
        users.withLock { $0 = $0.filter { now - $0.value.firstFailure < window || $0.value.lockedUntil > now } }
        addresses.withLock { $0 = $0.filter { now - $0.value.firstFailure < window } }
    }
}
