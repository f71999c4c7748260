import IMProtocol

/// Why a webhook request was not let in. Always answered 401 with nothing stored.
public struct WebhookAuthError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable kind of refusal.
    public enum Code: String, Sendable, Hashable {
        /// No credentials where the route expects them.
        case missingCredentials = "missing_credentials"
        /// Credentials present but not of the expected form.
        case malformedCredentials = "malformed_credentials"
        /// Credentials of the right form that do not match.
        case wrongCredentials = "wrong_credentials"
        /// A signature timestamp outside the accepted window: a replay or a bad clock.
        case staleTimestamp = "stale_timestamp"
    }

    /// The stable kind of refusal.
    public let code: Code
    /// What is wrong, for the sender's operator; never contains the expected secret.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    /// `UNAUTHORIZED` (401) with ``code`` as its reason.
    public var apiError: APIError { APIError(.unauthorized, message, reason: code.rawValue) }
}
