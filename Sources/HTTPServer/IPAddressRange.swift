import Glibc

/// An IP address or a CIDR block (`10.0.0.0/8`, `::1`, `fd00::/8`), for the trusted
/// proxies whose `X-Forwarded-For` the server believes.
///
/// IPv4 addresses are kept as IPv4-mapped IPv6 (`::ffff:a.b.c.d`), so an IPv4 peer on a
/// dual-stack socket matches an IPv4 range.
public struct IPAddressRange: Sendable, Hashable, CustomStringConvertible {
    private let network: [UInt8]
    private let prefixLength: Int
    public let description: String

    /// Parses `address` or `address/prefix`; nil when it is neither.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let bytes = IPAddressRange.bytes(of: String(parts[0])) else { return nil }
        let isV4 = !parts[0].contains(":")
        var length = 128
        if parts.count == 2 {
            guard let prefix = Int(parts[1]), prefix >= 0, prefix <= (isV4 ? 32 : 128) else { return nil }
            length = isV4 ? prefix + 96 : prefix
        }
        network = IPAddressRange.masked(bytes, length)
        prefixLength = length
        description = text
    }

    /// True when `address` (as text) lies in this range; false for text that is no address.
    public func contains(_ address: String) -> Bool {
        guard let bytes = IPAddressRange.bytes(of: address) else { return false }
        return IPAddressRange.masked(bytes, prefixLength) == network
    }

    /// The 16 bytes of an IPv6 address, or of an IPv4 address mapped into IPv6.
    static func bytes(of text: String) -> [UInt8]? {
        var bare = Substring(text)
        if bare.hasPrefix("["), bare.hasSuffix("]") { bare = bare.dropFirst().dropLast() }
        // A zone (`fe80::1%eth0`) names an interface, not an address.
        if let percent = bare.firstIndex(of: "%") { bare = bare[..<percent] }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, String(bare), &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        var v4 = in_addr()
        if inet_pton(AF_INET, String(bare), &v4) == 1 {
            return [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] + withUnsafeBytes(of: &v4) { Array($0) }
        }
        return nil
    }

    /// The key one client's budgets are kept under: an IPv4 address as it is (also when
    /// mapped into IPv6), an IPv6 address by its /64 network, written `2001:db8:1:2::/64`.
    /// A /64 is what one subscriber usually gets, so walking through its addresses gains
    /// nothing. Text that is no address is its own key.
    public static func clientKey(of address: String) -> String {
        guard let bytes = bytes(of: address) else { return address }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            return bytes[12...].map(String.init).joined(separator: ".")
        }
        let groups = stride(from: 0, to: 8, by: 2).map { String(Int(bytes[$0]) << 8 | Int(bytes[$0 + 1]), radix: 16) }
        return groups.joined(separator: ":") + "::/64"
    }

    private static func masked(_ bytes: [UInt8], _ length: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let bits = min(max(length - index * 8, 0), 8)
            return bits == 8 ? byte : byte & ~(0xFF >> bits)
        }
    }

    /// The client a request comes from: the peer, or, when the peer is a trusted proxy,
    /// the last address in `X-Forwarded-For` (read from the right) that is not itself a
    /// trusted proxy. Entries a proxy did not add cannot be told from ones it did, so only
    /// the trusted hops at the right end are skipped; text that is no address ends the
    /// walk at the hop before it.
    static func client(peer: String, forwardedFor values: [String], trusted: [IPAddressRange]) -> String {
        let hops = values.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters() }
        var client = peer
        for hop in hops.reversed() {
            guard bytes(of: hop) != nil else { break }
            client = hop
            if !trusted.contains(where: { $0.contains(hop) }) { break }
        }
        return client
    }
}

extension Substring {
    fileprivate func trimmingCharacters() -> String {
        var slice = self
        while slice.first == " " || slice.first == "\t" { slice = slice.dropFirst() }
        while slice.last == " " || slice.last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
