extension CurlTransport {
    /// Limits and identity of a `CurlTransport`, fixed when it is created.
    public struct Configuration: Sendable {
        /// The `User-Agent` sent when a request sets none.
        public static let defaultUserAgent = "switchboard/0.1"

        /// Largest response body accepted; a larger one fails with `.tooLarge`.
        public var maxResponseBytes: Int
        /// Sent as `User-Agent` unless a request sets its own.
        public var userAgent: String
        /// Connections open at once to one host; 0 means unlimited (one per parked long-poll).
        public var maxConnectionsPerHost: Int
        /// Connections open at once in total; 0 means unlimited. Requests over it wait.
        public var maxTotalConnections: Int
        /// Connections kept open for reuse; must exceed the number of concurrent long-polls,
        /// or finished ones get closed instead of reused.
        public var maxCachedConnections: Int
        /// Receives libcurl's verbose trace (connects, header lines), one line per call.
        ///
        /// Called on the transport's thread: keep it quick and never block in it.
        public var log: (@Sendable (String) -> Void)?
        /// Asked before every new connection with the address it goes to; nil allows all.
        /// The bot runner's `http` actions use it to keep away from private addresses.
        public var connectFilter: ConnectFilter?
        /// Which proxy requests go through.
        public var proxy: Proxy

        /// Which proxy a transport's requests go through.
        public enum Proxy: Sendable, Hashable {
            /// The one the environment names (`http_proxy`, `https_proxy`, `no_proxy`), as
            /// libcurl reads it: the client core's default, as for any command-line client.
            case environment
            /// None, whatever the environment says: a proxy would connect for us, past the
            /// connect filter.
            case none
            /// This one (`http://host:port`), whatever the environment says.
            case url(String)
        }

        /// Creates a configuration; the defaults suit a client or a bot process.
        public init(
            maxResponseBytes: Int = 16 << 20,
            userAgent: String = Configuration.defaultUserAgent,
            maxConnectionsPerHost: Int = 0,
            maxTotalConnections: Int = 0,
            maxCachedConnections: Int = 2048,
            log: (@Sendable (String) -> Void)? = nil,
            connectFilter: ConnectFilter? = nil,
            proxy: Proxy = .environment
        ) {
            self.maxResponseBytes = maxResponseBytes
            self.userAgent = userAgent
            self.maxConnectionsPerHost = maxConnectionsPerHost
            self.maxTotalConnections = maxTotalConnections
            self.maxCachedConnections = maxCachedConnections
            self.log = log
            self.connectFilter = connectFilter
            self.proxy = proxy
        }

        /// Rejects values libcurl would misread.
        func validate() throws(TransportError) {
            func invalid(_ what: String) -> TransportError {
                TransportError(code: .other, message: "invalid transport configuration: \(what)",
                               requestNotSent: true)
            }
            guard maxResponseBytes > 0 else { throw invalid("maxResponseBytes must be positive") }
            guard maxConnectionsPerHost >= 0 else { throw invalid("maxConnectionsPerHost must be 0 or more") }
            guard maxTotalConnections >= 0 else { throw invalid("maxTotalConnections must be 0 or more") }
            guard maxCachedConnections > 0 else { throw invalid("maxCachedConnections must be positive") }
            guard !userAgent.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                throw invalid("userAgent contains a line break or NUL")
            }
            if case .url(let url) = proxy {
                guard url.hasPrefix("http://") || url.hasPrefix("https://"),
                      !url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
                    throw invalid("proxy '\(url.prefix(64))' must be an http:// or https:// URL without blanks")
                }
            }
        }
    }
}
