import CCrypto
import Foundation

/// Cryptographically secure random bytes and tokens.
public enum SecureRandom {
    /// `count` bytes from OpenSSL's CSPRNG (seeded from the kernel).
    public static func bytes(_ count: Int) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: count)
        let ok = output.withUnsafeMutableBytes { RAND_bytes($0.baseAddress, Int32(count)) }
        if ok != 1 {
            // OpenSSL could not seed; fall back to the kernel through the standard library.
            var generator = SystemRandomNumberGenerator()
            for index in output.indices { output[index] = generator.next() }
        }
        return output
    }

    /// A URL-safe token carrying `bits` random bits (base64url, no padding).
    public static func token(bits: Int = 256) -> String {
        base64URL(bytes((bits + 7) / 8))
    }

    /// Base64url without padding (RFC 4648 §5).
    public static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
