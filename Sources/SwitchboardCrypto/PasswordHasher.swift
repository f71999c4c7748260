import CCrypto

/// Argon2id password hashing (RFC 9106) through libargon2.
///
/// Hashes are stored in the PHC string format (`$argon2id$v=19$m=…,t=…,p=…$salt$hash`),
/// so each carries its own cost and old hashes keep verifying after the cost changes.
/// Hashing is deliberately slow and memory-hard: call it off the cooperative thread pool
/// and bound how many run at once.
public struct PasswordHasher: Sendable, Equatable {
    /// Memory cost in KiB.
    public var memoryKiB: UInt32
    /// Passes over the memory.
    public var iterations: UInt32
    /// Lanes.
    public var parallelism: UInt32

    /// The shipped cost: 64 MiB, 3 passes, 1 lane (above RFC 9106's second recommended
    /// option and OWASP's minimum of 19 MiB, 2 passes).
    public static let standard = PasswordHasher(memoryKiB: 64 * 1024, iterations: 3, parallelism: 1)

    /// OWASP's minimum for Argon2id: 19 MiB, 2 passes, 1 lane. A cost below it is allowed
    /// (tests use one) but warned about.
    public static let owaspMinimum = PasswordHasher(memoryKiB: 19 * 1024, iterations: 2, parallelism: 1)

    /// True when this cost is below `owaspMinimum` in memory or passes.
    public var isBelowOWASPMinimum: Bool {
        memoryKiB < Self.owaspMinimum.memoryKiB || iterations < Self.owaspMinimum.iterations
    }

    public init(memoryKiB: UInt32, iterations: UInt32, parallelism: UInt32) {
        self.memoryKiB = memoryKiB
        self.iterations = iterations
        self.parallelism = parallelism
    }

    /// An error from libargon2, with its code and text.
    public struct Failure: Error, CustomStringConvertible {
        public var code: Int32
        public var description: String {
            "password hashing failed: \(String(cString: argon2_error_message(code))) (argon2 error \(code))"
        }
    }

    /// Hashes a password with a fresh 16-byte salt.
    public func hash(_ password: String) throws -> String {
        let salt = SecureRandom.bytes(16)
        let hashLength = 32
        let encodedLength = argon2_encodedlen(
            iterations, memoryKiB, parallelism, UInt32(salt.count), UInt32(hashLength), Argon2_id)
        var encoded = [CChar](repeating: 0, count: encodedLength)
        let passwordBytes = Array(password.utf8)
        let result = passwordBytes.withUnsafeBytes { pwd in
            salt.withUnsafeBytes { saltRaw in
                argon2id_hash_encoded(
                    iterations, memoryKiB, parallelism, pwd.baseAddress, pwd.count,
                    saltRaw.baseAddress, saltRaw.count, hashLength, &encoded, encodedLength)
            }
        }
        guard result == ARGON2_OK.rawValue else { throw Failure(code: result) }
        return String(decoding: encoded.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// True when `password` matches a hash made by `hash(_:)` (at any cost).
    public static func verify(_ password: String, against encoded: String) -> Bool {
        guard encoded.hasPrefix("$argon2id$") else { return false }
        let passwordBytes = Array(password.utf8)
        return passwordBytes.withUnsafeBytes { pwd in
            argon2id_verify(encoded, pwd.baseAddress, pwd.count) == ARGON2_OK.rawValue
        }
    }

    /// True when a stored hash was made with a different cost than this hasher's.
    public func needsRehash(_ encoded: String) -> Bool {
        !encoded.hasPrefix("$argon2id$v=19$m=\(memoryKiB),t=\(iterations),p=\(parallelism)$")
    }
}
