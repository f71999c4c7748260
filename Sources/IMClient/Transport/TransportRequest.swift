import Foundation

/// An HTTP request as the transport sends it: nothing is added but a `User-Agent`.
public struct TransportRequest: Sendable {
    /// The method, e.g. `"GET"` or `"POST"`, sent as given.
    public var method: String
    /// An absolute `http` or `https` URL.
    public var url: String
    /// Header fields in order; the transport adds none of its own except `User-Agent`.
    public var headers: [(name: String, value: String)]
    /// The body, sent with a `Content-Length`; `nil` sends none.
    public var body: Data?
    /// The limit for the whole exchange, connecting included (millisecond precision).
    public var timeout: Duration
    /// The limit for establishing the connection (and TLS handshake).
    public var connectTimeout: Duration

    /// Creates a request; defaults suit a short API call.
    public init(
        method: String = "GET",
        url: String,
        headers: [(name: String, value: String)] = [],
        body: Data? = nil,
        timeout: Duration = .seconds(30),
        connectTimeout: Duration = .seconds(5)
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.connectTimeout = connectTimeout
    }

    /// The first value of the header `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }
}
