import Dispatch
import IMProtocol
import SwitchboardCrypto
import Synchronization

/// Runs slow password hashing on its own serial queues, at most `width` at once, so
/// logins neither block Swift's cooperative pool nor use unbounded memory; and at most
/// `queueLimit` waiting or running, so a flood of logins is refused (503 with
/// `Retry-After`) instead of queueing without end.
final class HashingPool: Sendable {
    private let queues: [DispatchQueue]
    private let next = Atomic<Int>(0)
    private let pending = Atomic<Int>(0)
    private let queueLimit: Int
    let hasher: PasswordHasher
    /// Password checks run (`verify`), for `/metrics`.
    let checks = Atomic<Int>(0)
    /// Hashing refused because the queue was full.
    let refused = Atomic<Int>(0)

    init(hasher: PasswordHasher, width: Int, queueLimit: Int) {
        self.hasher = hasher
        self.queueLimit = max(queueLimit, 1)
        self.queues = (0..<max(1, width)).map { DispatchQueue(label: "switchboard.password-hashing.\($0)") }
    }

    /// A new hash of `password`.
    func hash(_ password: String) async throws -> String {
        try await run { [hasher] in try hasher.hash(password) }
    }

    /// True when `password` matches `encoded`.
    func verify(_ password: String, against encoded: String) async throws -> Bool {
        try await run { [self] in
            checks.add(1, ordering: .relaxed)
            return PasswordHasher.verify(password, against: encoded)
        }
    }

    /// Hashes waiting or running now.
    var queued: Int { pending.load(ordering: .relaxed) }

    /// Runs `work` on a hashing queue; throws 503 when `queueLimit` jobs wait or run already.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        guard pending.add(1, ordering: .relaxed).newValue <= queueLimit else {
            pending.subtract(1, ordering: .relaxed)
            refused.add(1, ordering: .relaxed)
            throw APIError(
                .unavailable, "the server is busy checking passwords: try again in a moment", retryAfter: 1)
        }
        let index = next.wrappingAdd(1, ordering: .relaxed).oldValue % queues.count
        return try await withCheckedThrowingContinuation { continuation in
            queues[index].async { [self] in
                let result = Result { try work() }
                // Off the count before the caller goes on, so its next check finds the room.
                pending.subtract(1, ordering: .relaxed)
                continuation.resume(with: result)
            }
        }
    }
}
