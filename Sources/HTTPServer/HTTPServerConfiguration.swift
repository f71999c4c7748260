import Glibc

/// Settings of an `HTTPServer`. The defaults suit a production server on a small machine.
public struct HTTPServerConfiguration: Sendable {
    /// The address to bind, e.g. `127.0.0.1`, `0.0.0.0` or `::1`.
    public var host: String
    /// The TCP port; 0 picks a free one (read it back from `HTTPServer.port`).
    public var port: Int
    /// Threads serving connections; 0 means one per core.
    public var threads: Int
    /// Open connections at most, parked ones included. Past it new connections are refused.
    public var connectionLimit: Int
    /// A connection with no traffic for this many seconds is closed (parked requests are
    /// exempt).
    public var idleTimeout: Int
    /// A request's header block must be complete within this many seconds of the
    /// connection opening or of the previous response, or the connection is closed
    /// (slow-header attacks).
    public var headerTimeout: Int
    /// A request's whole body must arrive within this many seconds of its headers, or the
    /// connection is closed (slow-body attacks).
    public var bodyTimeout: Int
    /// A client must take a whole response within this many seconds of it being ready, or
    /// the connection is closed (slow readers holding a slot and a response's memory).
    public var sendTimeout: Int
    /// Open connections one peer address may hold; past it new ones are closed at once.
    /// Trusted proxies are exempt: for requests through them, this bounds the requests in
    /// flight (parked polls included) per client address they forward, answered 429 past it.
    public var connectionsPerAddress: Int
    /// Peers whose `X-Forwarded-For` names the client (`Request.remoteAddress`); empty
    /// (the default) trusts no one, and the header is ignored.
    public var trustedProxies: [IPAddressRange]
    /// The default largest request body, in bytes (413 past it).
    public var maxBodyBytes: Int
    /// Request body bytes held at once across all requests being read or answered; a
    /// body arriving past it is dropped as it comes and answered 503 with `Retry-After`
    /// (bodies are buffered as they arrive, never ahead of their declared length).
    public var maxBufferedBodyBytes: Int
    /// Per-connection buffer for headers and I/O; bounds header size (431 past it).
    ///
    /// Once a connection has served a request the HTTP library keeps all of it in use for
    /// as long as the connection stays open, so this is most of what an idle keep-alive
    /// connection or a parked long-poll costs. 8 KiB takes header blocks of about 7 KiB.
    public var connectionMemory: Int
    /// Query arguments (`?a=1&b=2` has two) a request may carry; past it the request is
    /// answered 414 at once. Each argument takes room in the connection's memory
    /// (`connectionMemory`), and the HTTP library, out of room, would leave the client
    /// without an answer; 64 leave room for the headers in 8 KiB.
    public var maxQueryArguments: Int
    /// Seconds `shutdown` waits for in-flight requests before closing anyway.
    public var shutdownGrace: Double
    /// Receives the HTTP library's error messages (one line each, no newline); standard
    /// error by default.
    public var errorLog: @Sendable (String) -> Void = HTTPServerConfiguration.standardErrorLog

    /// Writes a message and a newline to standard error. A failed write (a closed or full
    /// stream) drops the line: the log must never stop the server.
    public static let standardErrorLog: @Sendable (String) -> Void = { message in
        let line = Array("HTTPServer: \(message)\n".utf8)
        line.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                let written = write(2, base + offset, raw.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }

    public init(
        host: String = "127.0.0.1", port: Int = 8080, threads: Int = 0,
        connectionLimit: Int = 16_384, idleTimeout: Int = 60, headerTimeout: Int = 10,
        bodyTimeout: Int = 30, sendTimeout: Int = 60, connectionsPerAddress: Int = 256,
        trustedProxies: [IPAddressRange] = [],
        maxBodyBytes: Int = 1 << 20, maxBufferedBodyBytes: Int = 64 << 20, connectionMemory: Int = 8 * 1024,
        maxQueryArguments: Int = 64, shutdownGrace: Double = 10
    ) {
        self.host = host
        self.port = port
        self.threads = threads
        self.connectionLimit = connectionLimit
        self.idleTimeout = idleTimeout
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.sendTimeout = sendTimeout
        self.connectionsPerAddress = connectionsPerAddress
        self.trustedProxies = trustedProxies
        self.maxBodyBytes = maxBodyBytes
        self.maxBufferedBodyBytes = maxBufferedBodyBytes
        self.maxQueryArguments = maxQueryArguments
        self.connectionMemory = connectionMemory
        self.shutdownGrace = shutdownGrace
    }
}
