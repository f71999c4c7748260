/// Why a request got no complete response.
///
/// Callers branch on `code` and on `requestNotSent`; `message` is for people and names
/// the server (`host:port`) and the cause.
public struct TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable kind of failure.
    public enum Code: String, Sendable {
        /// The server could not be reached: refused, unresolvable, unroutable.
        case cannotConnect
        /// The request's timeout (or connect timeout) ran out.
        case timedOut
        /// The connection broke before a complete response arrived.
        case connectionLost
        /// The caller cancelled the request, or the transport shut down.
        case cancelled
        /// The URL is malformed or not `http`/`https`.
        case invalidURL
        /// The TLS handshake or certificate check failed.
        case tls
        /// The response body exceeded the configured limit.
        case tooLarge
        /// Anything else, including a request the transport refuses to send.
        case other
    }

    /// The stable kind of failure.
    public var code: Code
    /// A sentence a person can act on, e.g. "server not reachable at 127.0.0.1:8080 (connection refused)".
    public var message: String
    /// libcurl's `CURLcode` when the failure came from libcurl.
    public var curlCode: Int?
    /// True when the request surely did not reach the server (safe to retry any method): e.g. connect failures.
    public var requestNotSent: Bool

    /// Creates an error; fakes use it to script failures.
    public init(code: Code, message: String, curlCode: Int? = nil, requestNotSent: Bool = false) {
        self.code = code
        self.message = message
        self.curlCode = curlCode
        self.requestNotSent = requestNotSent
    }

    /// The message.
    public var description: String { message }
}
