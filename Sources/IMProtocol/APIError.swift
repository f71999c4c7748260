/// The stable, machine-readable code of every API error. Clients branch on this, never on
/// the message.
public enum ErrorCode: String, Sendable, Codable, CaseIterable {
    case invalidRequest = "INVALID_REQUEST"
    case unauthorized = "UNAUTHORIZED"
    case forbidden = "FORBIDDEN"
    case notFound = "NOT_FOUND"
    case methodNotAllowed = "METHOD_NOT_ALLOWED"
    case conflict = "CONFLICT"
    case cursorExpired = "CURSOR_EXPIRED"
    case payloadTooLarge = "PAYLOAD_TOO_LARGE"
    case unsupportedMediaType = "UNSUPPORTED_MEDIA_TYPE"
    case rateLimited = "RATE_LIMITED"
    case internalError = "INTERNAL"
    case unavailable = "UNAVAILABLE"

    /// The code an HTTP status carries, or nil for a status that carries none of them.
    public init?(httpStatus: Int) {
        guard let code = Self.byStatus[httpStatus] else { return nil }
        self = code
    }

    private static let byStatus: [Int: ErrorCode] = Dictionary(
        allCases.map { ($0.httpStatus, $0) }, uniquingKeysWith: { first, _ in first })

    /// The HTTP status that carries this code.
    public var httpStatus: Int {
        switch self {
        case .invalidRequest: 400
        case .unauthorized: 401
        case .forbidden: 403
        case .notFound: 404
        case .methodNotAllowed: 405
        case .conflict: 409
        case .cursorExpired: 410
        case .payloadTooLarge: 413
        case .unsupportedMediaType: 415
        case .rateLimited: 429
        case .internalError: 500
        case .unavailable: 503
        }
    }
}

/// An API error: what the server answers with, and what a client throws.
///
/// On the wire: `{"error":{"code":"NOT_FOUND","message":"no user 'bob'", ...}}`.
public struct APIError: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String
    /// Seconds to wait before retrying (`RATE_LIMITED`, `UNAVAILABLE`).
    public var retryAfter: Int?
    /// The request field the error is about, when there is one.
    public var field: String?
    /// A finer reason inside the code, e.g. `kicked_out` or `expired` for `UNAUTHORIZED`.
    public var reason: String?
    /// Until when the refusal holds, when it ends by itself (`FORBIDDEN` with reason
    /// `muted` or `banned`).
    public var until: Timestamp?

    public init(
        _ code: ErrorCode, _ message: String, retryAfter: Int? = nil, field: String? = nil,
        reason: String? = nil, until: Timestamp? = nil
    ) {
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
        self.field = field
        self.reason = reason
        self.until = until
    }

    enum CodingKeys: String, CodingKey {
        case code, message, field, reason, until
        case retryAfter = "retry_after"
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// A 400 about one request field.
    public static func invalid(_ field: String, _ message: String) -> APIError {
        APIError(.invalidRequest, message, field: field)
    }
}

/// The JSON envelope every error travels in.
public struct ErrorEnvelope: Codable, Sendable, Equatable {
    public var error: APIError
    public init(error: APIError) { self.error = error }
}
