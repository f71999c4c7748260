#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Where outgoing requests may connect: anywhere public, and private, loopback and
/// link-local addresses only when listed (addresses, networks such as `10.0.0.0/8`, or
/// host names). The bot runner's `http` actions (`runner.http.allow`) and the IM
/// server's Telegram webhooks (`telegram.webhook_allow`) use it as their transport's
/// `connectFilter`.
///
/// Judged on the address a connection really goes to (after name resolution, for every
/// connection; redirects are never followed), so a host name that resolves to an
/// internal address, or changes what it resolves to, gets no further than the address.
public struct AddressAllowList: Sendable, Hashable {
    /// An entry that is neither an address, a network nor a host name.
    public struct InvalidEntry: Error, Sendable {
        public var entry: String
    }

    /// A network: an address and how many leading bits of it count.
    struct Network: Sendable, Hashable {
        var bytes: [UInt8]
        var prefix: Int

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            var bits = prefix
            for (a, b) in zip(address, bytes) where bits > 0 {
                let mask: UInt8 = bits >= 8 ? 0xFF : ~(0xFF >> UInt8(bits))
                if a & mask != b & mask { return false }
                bits -= 8
            }
            return true
        }
    }

    private(set) var networks: [Network] = []
    private(set) var hosts: Set<String> = []

    /// Allows no restricted address.
    public init() {}

    /// Parses the entries; throws naming the first one that is neither an address, a
    /// network nor a host name.
    public init(_ entries: [String]) throws(InvalidEntry) {
        for entry in entries {
            let text = entry.trimmingCharacters(in: .whitespaces).lowercased()
            if let network = Self.network(text) {
                networks.append(network)
            } else if Self.isHostName(text) {
                hosts.insert(text)
            } else {
                throw InvalidEntry(entry: entry)
            }
        }
    }

    /// Allows connections to `host` whatever it resolves to: for targets the runner's
    /// own configuration names.
    public mutating func allow(host: String) {
        hosts.insert(host.lowercased())
    }

    /// Why a connection is refused, naming who may not connect (`http actions`) and the
    /// setting that would allow it; nil when it is allowed.
    public func refusal(_ attempt: CurlTransport.ConnectAttempt, by who: String, setting: String) -> String? {
        guard let kind = Self.restrictedKind(attempt.address) else { return nil }
        if hosts.contains(attempt.host.lowercased()) || networks.contains(where: { $0.contains(attempt.address) }) {
            return nil
        }
        return "\(attempt.host) is at \(attempt.addressText), a \(kind) address, which \(who) may not "
            + "reach; list it in \(setting) to allow it"
    }

    /// Whether a host name or address written in a URL is listed by name.
    public func lists(host: String) -> Bool { hosts.contains(host.lowercased()) }

    /// The kind of restricted address, or nil for a public one.
    public static func restrictedKind(_ address: [UInt8]) -> String? {
        if address.count == 16 {
            // IPv4 inside IPv6 (mapped, NAT64) is judged as the IPv4 address.
            if address[0..<10].allSatisfy({ $0 == 0 }), address[10] == 0xFF, address[11] == 0xFF {
                return restrictedKind(Array(address[12...]))
            }
            if address[0..<12] == [0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] {
                return restrictedKind(Array(address[12...]))
            }
        }
        for (network, kind) in restricted where network.contains(address) { return kind }
        return nil
    }

    private static let restricted: [(Network, String)] = [
        ("0.0.0.0/8", "unspecified"), ("10.0.0.0/8", "private"), ("100.64.0.0/10", "shared (carrier NAT)"),
        ("127.0.0.0/8", "loopback"), ("169.254.0.0/16", "link-local"), ("172.16.0.0/12", "private"),
        ("192.0.0.0/24", "special-purpose"), ("192.168.0.0/16", "private"), ("198.18.0.0/15", "benchmarking"),
        ("224.0.0.0/4", "multicast"), ("240.0.0.0/4", "reserved"),
        ("::/128", "unspecified"), ("::1/128", "loopback"), ("fe80::/10", "link-local"), ("fc00::/7", "private"),
        ("ff00::/8", "multicast"),
    ].compactMap { text, kind in network(text).map { ($0, kind) } }

    /// `10.0.0.0/8`, `fd00::/8`, or a single address.
    static func network(_ text: String) -> Network? {
        let parts = text.split(separator: "/", maxSplits: 1).map(String.init)
        guard let bytes = Self.bytes(parts[0]) else { return nil }
        let prefix = parts.count == 2 ? Int(parts[1]) : bytes.count * 8
        guard let prefix, (0...(bytes.count * 8)).contains(prefix) else { return nil }
        return Network(bytes: bytes, prefix: prefix)
    }

    private static func isHostName(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 253 && text.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        }
    }

    /// The bytes of an address written as text (`10.0.0.1`, `::1`).
    public static func bytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: v6) { Array($0) } }
        return nil
    }
}
