#if canImport(Glibc)
import Glibc
#endif
import CCurl

extension CurlTransport {
    /// A connection the transport is about to open: to which address, for which host.
    public struct ConnectAttempt: Sendable, Hashable {
        /// The host of the request's URL, as written there (a name or an address).
        public var host: String
        /// The address actually being connected to: 4 bytes (IPv4) or 16 (IPv6).
        public var address: [UInt8]
        /// The port being connected to.
        public var port: Int

        /// Describes a connection (the transport makes these; tests of filters too).
        public init(host: String, address: [UInt8], port: Int) {
            self.host = host
            self.address = address
            self.port = port
        }

        /// The address in its usual text form (`10.0.0.1`, `::1`).
        public var addressText: String {
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
            let family = address.count == 4 ? AF_INET : AF_INET6
            let converted = address.withUnsafeBytes { bytes in
                inet_ntop(family, bytes.baseAddress, &buffer, socklen_t(buffer.count))
            }
            guard converted != nil else { return "?" }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// Decides whether a connection may be opened: nil lets it, a sentence refuses it (the
    /// request then fails with that reason). Called on the transport's thread for every
    /// new connection, after name resolution, so the address is the one really used.
    public typealias ConnectFilter = @Sendable (ConnectAttempt) -> String?
}

extension CurlCallbacks {
    /// CURLOPT_OPENSOCKETFUNCTION: asks the transfer's connect filter, then opens the socket.
    static let openSocket: curl_opensocket_callback = { context, purpose, address in
        guard let context, let address, purpose == CURLSOCKTYPE_IPCXN else { return sb_curl_socket_bad() }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
        let family = address.pointee.family
        // libcurl's storage behind `addr` is large enough for the family's address.
        let raw = UnsafeMutableRawPointer(address) + (MemoryLayout<curl_sockaddr>.offset(of: \.addr) ?? 16)
        let attempt: CurlTransport.ConnectAttempt
        switch family {
        case AF_INET:
            let ipv4 = raw.assumingMemoryBound(to: sockaddr_in.self).pointee
            attempt = CurlTransport.ConnectAttempt(
                host: transfer.target.host, address: withUnsafeBytes(of: ipv4.sin_addr) { Array($0) },
                port: Int(UInt16(bigEndian: ipv4.sin_port)))
        case AF_INET6:
            let ipv6 = raw.assumingMemoryBound(to: sockaddr_in6.self).pointee
            attempt = CurlTransport.ConnectAttempt(
                host: transfer.target.host, address: withUnsafeBytes(of: ipv6.sin6_addr) { Array($0) },
                port: Int(UInt16(bigEndian: ipv6.sin6_port)))
        default:
            transfer.refusedConnection = "address family \(family) is not allowed"
            return sb_curl_socket_bad()
        }
        if let reason = transfer.connectFilter?(attempt) {
            transfer.refusedConnection = reason
            return sb_curl_socket_bad()
        }
        return socket(family, address.pointee.socktype, address.pointee.protocol)
    }
}
