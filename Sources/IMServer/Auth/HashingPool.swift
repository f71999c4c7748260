import Dispatch
import SwitchboardCrypto
import Synchronization

/// Runs slow password hashing on its own serial queues, at most `width` at once, so
/// logins neither block Swift's cooperative pool nor use unbounded memory.
final class HashingPool: Sendable {
    private let queues: [DispatchQueue]
    private let next = Atomic<Int>(0)
    let hasher: PasswordHasher

    init(hasher: PasswordHasher, width: Int) {
        self.hasher = hasher
        self.queues = (0..<max(1, width)).map { DispatchQueue(label: "switchboard.password-hashing.\($0)") }
    }

    /// A new hash of `password`.
    func hash(_ password: String) async throws -> String {
        try await run { [hasher] in try hasher.hash(password) }
    }

    /// True when `password` matches `encoded`.
    func verify(_ password: String, against encoded: String) async -> Bool {
        (try? await run { PasswordHasher.verify(password, against: encoded) }) ?? false
    }

    private func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        let index = next.wrappingAdd(1, ordering: .relaxed).oldValue % queues.count
        return try await withCheckedThrowingContinuation { continuation in
            queues[index].async { continuation.resume(with: Result { try work() }) }
        }
    }
}
