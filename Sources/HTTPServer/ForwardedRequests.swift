import Synchronization

/// Who a request comes from when a trusted proxy carries it, and how many requests each
/// such client has in flight: a proxy brings many clients over few connections, so the
/// per-address limit counts their requests (parked ones included) instead of connections.
final class ForwardedRequests: Sendable {
    private let trustedProxies: [IPAddressRange]
    private let limit: Int
    private let inFlight = Mutex<[String: Int]>([:])

    init(trustedProxies: [IPAddressRange], limit: Int) {
        self.trustedProxies = trustedProxies
        self.limit = max(limit, 1)
    }

    /// The client of a request: the peer, or the one a trusted proxy names in
    /// `X-Forwarded-For`.
    func client(of head: RequestHead, on connection: ConnectionState) -> String {
        guard connection.peerIsTrustedProxy else { return connection.peerAddress }
        let values = head.headers.fields.filter { $0.name.lowercased() == "x-forwarded-for" }.map(\.value)
        guard !values.isEmpty else { return connection.peerAddress }
        return IPAddressRange.client(peer: connection.peerAddress, forwardedFor: values, trusted: trustedProxies)
    }

    /// Counts a request of `client` in flight; false when it has as many as allowed.
    func admit(_ client: String) -> Bool {
        inFlight.withLock { counts in
            let current = counts[client, default: 0]
            guard current < limit else { return false }
            counts[client] = current + 1
            return true
        }
    }

    /// Uncounts a request that `admit` counted.
    func release(_ client: String) {
        inFlight.withLock { counts in
            let current = counts[client, default: 1]
            counts[client] = current > 1 ? current - 1 : nil
        }
    }
}
