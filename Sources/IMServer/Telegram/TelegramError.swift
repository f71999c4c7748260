import Foundation
import HTTPServer
import IMProtocol

/// A Telegram Bot API error: `{"ok":false,"error_code":…,"description":…}`, with
/// `parameters.retry_after` on 429. The codes and the words before the colon are
/// Telegram's, since the frameworks branch on them (aiogram turns 400 into
/// `TelegramBadRequest`, a `retry_after` into `TelegramRetryAfter`).
struct TelegramError: Error, Sendable, Equatable {
    var code: Int
    var description: String
    var retryAfter: Int?

    init(_ code: Int, _ description: String, retryAfter: Int? = nil) {
        self.code = code
        self.description = description
        self.retryAfter = retryAfter
    }

    static func badRequest(_ what: String) -> TelegramError { TelegramError(400, "Bad Request: \(what)") }
    static func forbidden(_ what: String) -> TelegramError { TelegramError(403, "Forbidden: \(what)") }
    static let unauthorized = TelegramError(401, "Unauthorized")
    static let chatNotFound = badRequest("chat not found")
    static let userNotFound = badRequest("user not found")
    static let messageNotFound = badRequest("message not found")

    /// The Telegram error for a failure of a Switchboard service: the API's own words
    /// after Telegram's prefix, so a person reading a bot's log learns what happened.
    init(_ error: APIError) {
        switch error.code {
        case .invalidRequest:
            self.init(400, "Bad Request: \(error.message)")
        case .unauthorized:
            self.init(401, "Unauthorized: \(error.message)")
        case .forbidden:
            self.init(403, "Forbidden: \(error.message)")
        case .notFound:
            // Telegram answers 400 for chats, users and messages it cannot find.
            self.init(400, "Bad Request: \(error.message)")
        case .conflict, .cursorExpired, .methodNotAllowed, .unsupportedMediaType:
            self.init(400, "Bad Request: \(error.message)")
        case .payloadTooLarge:
            self.init(413, "Request Entity Too Large: \(error.message)")
        case .rateLimited:
            let seconds = error.retryAfter ?? 1
            self.init(429, "Too Many Requests: retry after \(seconds)", retryAfter: seconds)
        case .internalError:
            self.init(500, "Internal Server Error: \(error.message)")
        case .unavailable:
            self.init(503, "Service Unavailable: \(error.message)", retryAfter: error.retryAfter ?? 5)
        }
    }

    private struct Envelope: Encodable {
        struct Parameters: Encodable {
            var retryAfter: Int
        }
        var ok = false
        var errorCode: Int
        var description: String
        var parameters: Parameters?
    }

    /// The answer, with `Retry-After` when there is a wait.
    var response: Response {
        let envelope = Envelope(
            errorCode: code, description: description, parameters: retryAfter.map { .init(retryAfter: $0) })
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        if let retryAfter { headers.add("Retry-After", String(retryAfter)) }
        let body = (try? TelegramJSON.encoder.encode(envelope)) ?? Data(#"{"ok":false,"error_code":500}"#.utf8)
        return Response(status: code, headers: headers, body: body)
    }
}

/// The JSON coders of the Telegram dialect.
enum TelegramJSON {
    /// Compact, keys sorted and in snake case (`messageId` is `message_id`), nil fields
    /// left out.
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return encoder
    }()

    /// For objects in parameters (`reply_parameters`, `entities`, `permissions`).
    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }()

    /// `{"ok":true,"result":…}`.
    static func success<T: Encodable>(_ result: T) throws -> Response {
        Response(
            status: 200, headers: ["Content-Type": "application/json"],
            body: try encoder.encode(Success(ok: true, result: result)))
    }

    private struct Success<T: Encodable>: Encodable {
        var ok: Bool
        var result: T
    }
}
