import CCrypto
import Foundation

/// SHA-256, HMAC-SHA256 (and HMAC-SHA1 for others' protocols) from OpenSSL's libcrypto.
public enum Digest {
    /// The SHA-256 digest of some bytes.
    public static func sha256<Bytes: DataProtocol>(_ bytes: Bytes) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let input = Array(bytes)
        input.withUnsafeBytes { raw in
            _ = EVP_Digest(raw.baseAddress, raw.count, &output, &length, Self.sha256Algorithm ?? EVP_sha256(), nil)
        }
        return output
    }

    /// SHA-256 fetched from OpenSSL's provider once: `EVP_sha256()` makes every digest
    /// fetch it again, which took about a third of the time of hashing a login's token.
    /// The fetched algorithm is immutable and may be used from any thread (OpenSSL
    /// documents fetched `EVP_MD`s as shareable), and it lives as long as the process.
    nonisolated(unsafe) private static let sha256Algorithm: OpaquePointer? = EVP_MD_fetch(nil, "SHA2-256", nil)

    /// HMAC-SHA256 of a message under a key.
    public static func hmacSHA256<Key: DataProtocol, Bytes: DataProtocol>(key: Key, message: Bytes) -> [UInt8] {
        hmac(EVP_sha256(), size: 32, key: key, message: message)
    }

    /// HMAC-SHA1 of a message under a key: only where another program asks for it
    /// (Synapse's shared-secret registration), never for a secret of our own.
    public static func hmacSHA1<Key: DataProtocol, Bytes: DataProtocol>(key: Key, message: Bytes) -> [UInt8] {
        hmac(EVP_sha1(), size: 20, key: key, message: message)
    }

    private static func hmac<Key: DataProtocol, Bytes: DataProtocol>(
        _ algorithm: OpaquePointer?, size: Int, key: Key, message: Bytes
    ) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: size)
        var length: UInt32 = 0
        let keyBytes = Array(key)
        let messageBytes = Array(message)
        keyBytes.withUnsafeBytes { keyRaw in
            messageBytes.withUnsafeBytes { messageRaw in
                _ = HMAC(
                    algorithm, keyRaw.baseAddress, Int32(keyRaw.count),
                    messageRaw.baseAddress?.assumingMemoryBound(to: UInt8.self), messageRaw.count,
                    &output, &length)
            }
        }
        return output
    }

    /// Compares two byte strings in time that depends only on their length.
    public static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if lhs.isEmpty { return true }
        return lhs.withUnsafeBytes { l in
            rhs.withUnsafeBytes { r in CRYPTO_memcmp(l.baseAddress, r.baseAddress, l.count) == 0 }
        }
    }

    /// Lower-case hexadecimal.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Parses hexadecimal (either case); nil when malformed.
    public static func bytes(hex: String) -> [UInt8]? {
        let chars = Array(hex.utf8)
        guard chars.count % 2 == 0 else { return nil }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 48...57: c - 48
            case 97...102: c - 87
            case 65...70: c - 55
            default: nil
            }
        }
        var out = [UInt8]()
        out.reserveCapacity(chars.count / 2)
        var index = 0
        while index < chars.count {
            guard let high = nibble(chars[index]), let low = nibble(chars[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }
}
