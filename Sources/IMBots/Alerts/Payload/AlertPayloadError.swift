import IMProtocol

/// Why a webhook body was refused: a stable code, the field it is about and a sentence
/// the sender's operator can act on.
///
/// The listener answers it as the usual error envelope (``apiError``): 400, or 413 for a
/// body over a size bound. Nothing of a refused body reaches the rules.
public struct AlertPayloadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable kind of refusal.
    public enum Code: String, Sendable, Hashable {
        /// The body is not JSON at all.
        case invalidJSON = "invalid_json"
        /// A field has the wrong type or an impossible value.
        case invalidField = "invalid_field"
        /// A field the format requires is absent.
        case missingField = "missing_field"
        /// The payload announces a protocol version this bridge does not read.
        case unsupportedVersion = "unsupported_version"
        /// More alerts, labels or label bytes than the configured bounds.
        case tooLarge = "too_large"
    }

    /// The stable kind of refusal.
    public let code: Code
    /// The field, as a path into the body (`alerts[1].labels.instance`); nil for the body itself.
    public let field: String?
    /// What is wrong, naming the field.
    public let message: String

    /// Creates an error; `message` should name `field`.
    public init(_ code: Code, field: String?, _ message: String) {
        self.code = code
        self.field = field
        self.message = message
    }

    public var description: String { message }

    /// The error the listener answers with: `INVALID_REQUEST` (400), or
    /// `PAYLOAD_TOO_LARGE` (413) past a bound; `reason` carries ``code``.
    public var apiError: APIError {
        APIError(code == .tooLarge ? .payloadTooLarge : .invalidRequest, message,
                 field: field, reason: code.rawValue)
    }
}
