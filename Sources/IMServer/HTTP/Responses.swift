import Foundation
import HTTPServer
import IMProtocol
import IMStore

extension Response {
    /// A JSON response.
    static func json<T: Encodable>(_ value: T, status: Int = 200, encoder: JSONEncoder) throws -> Response {
        let body: Data
        if let message = value as? Message {
            body = WireWriter.encode(message)
        } else if let batch = value as? EventBatch {
            body = try WireWriter.encode(batch, fallback: encoder)
        } else {
            body = try encoder.encode(value)
        }
        return Response(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    /// The error envelope, with `Retry-After` when the error carries one.
    static func error(_ error: APIError, encoder: JSONEncoder) -> Response {
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        if let retryAfter = error.retryAfter { headers.add("Retry-After", String(retryAfter)) }
        if error.code == .unauthorized { headers.add("WWW-Authenticate", "Bearer") }
        let body =
            (try? encoder.encode(ErrorEnvelope(error: error)))
            ?? Data(#"{"error":{"code":"INTERNAL","message":"error encoding failed"}}"#.utf8)
        return Response(status: error.code.httpStatus, headers: headers, body: body)
    }

    /// 204 with no body.
    static let noContent = Response(status: 204)
}

/// Maps every failure a handler can raise to the API error the client sees; the one
/// place where internal errors become HTTP.
enum ErrorMapping {
    static func apiError(for error: any Error) -> (APIError, internal: Bool) {
        switch error {
        case let error as APIError:
            return (error, false)
        case let error as DecodingError:
            return (APIError(decoding: error), false)
        case let error as StoreError:
            switch error {
            case .conflict(let message): return (APIError(.conflict, message), false)
            case .notFound(let message): return (APIError(.notFound, message), false)
            case .closed: return (APIError(.unavailable, "the server is shutting down", retryAfter: 5), false)
            case .notMember: return (APIError(.forbidden, "you are not a member of this conversation"), false)
            case .muted(let until): return (APIError(.forbidden, "you are muted until \(until)", reason: "muted"), false)
            case .invalidReference(let message): return (APIError(.invalidRequest, message), false)
            case .cursorTooOld: return (APIError(.cursorExpired, "events after this cursor are no longer kept"), false)
            case .incompatibleSchema, .internalFailure:
                return (APIError(.internalError, "the server failed to handle this request; it has been logged"), true)
            }
        case let error as SQLiteError where error.isStorageFailure:
            return (APIError(.unavailable, "the server cannot write to its storage right now", retryAfter: 30), true)
        default:
            return (APIError(.internalError, "the server failed to handle this request; it has been logged"), true)
        }
    }
}
