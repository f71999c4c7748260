/// Why a call to Alertmanager's API did not succeed.
public struct AlertmanagerClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable kind of failure.
    public enum Code: String, Sendable, Hashable {
        /// No configured peer answered (refused, timed out, 5xx): try again later.
        case unavailable
        /// A peer refused the request (4xx): retrying the same request will not help.
        case rejected
        /// No silence with that id.
        case notFound
        /// A peer answered with a body that is not what the API returns.
        case invalidResponse
        /// No peer is configured.
        case notConfigured
    }

    /// The stable kind of failure.
    public let code: Code
    /// What happened, naming each peer tried and what it said.
    public let message: String

    /// Creates an error; fakes use it too.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
