import Foundation
import IMClient
import IMProtocol

/// One call of the client-server API before it becomes an HTTP request.
struct MatrixRequest: Sendable {
    var method: String
    /// Already percent-encoded (build it with ``MatrixPath``).
    var path: String
    var query: [(name: String, value: String)] = []
    var body: Data?
    var authenticated = true
    /// The body's media type; nil: JSON.
    var contentType: String?
    /// Overrides the configured timeout (`/sync`).
    var timeout: Duration?

    init(_ method: String, _ path: String, query: [(name: String, value: String)] = []) {
        self.method = method
        self.path = path
        self.query = query
    }

    /// The same request with a JSON body.
    func json<Body: Encodable>(_ body: Body) throws(IMClientError) -> MatrixRequest {
        var copy = self
        do {
            copy.body = try JSONEncoder().encode(body)
        } catch {
            throw IMClientError(.invalidArgument, "cannot encode the request body: \(error)")
        }
        return copy
    }

    var summary: String { "\(method) \(path)" }
}

/// Paths of the client-server API, each dynamic part percent-encoded so that an id can
/// never add a path segment or a query.
enum MatrixPath {
    static let client = "/_matrix/client/v3"
    private static let allowed = CharacterSet(
        charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")

    /// One segment, every reserved character encoded (`!`, `#`, `:`, `@`, `$` included).
    static func segment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    static func room(_ roomID: String) -> String { client + "/rooms/" + segment(roomID) }
}

/// The error body every Matrix error answer carries.
struct MatrixErrorBody: Decodable {
    var errcode: String
    var error: String?
    var retryAfterMilliseconds: Int64?

    enum CodingKeys: String, CodingKey {
        case errcode, error
        case retryAfterMilliseconds = "retry_after_ms"
    }
}

extension MatrixClient {
    /// Sends `request`; an answer of 400 or more is thrown as `IMClientError`.
    func perform(_ request: MatrixRequest) async throws(IMClientError) -> TransportResponse {
        var headers: [(name: String, value: String)] = [("Accept", "application/json")]
        if request.authenticated {
            guard let token = session?.accessToken else { throw IMClientError(.notLoggedIn, "not logged in to \(homeserver)") }
            headers.append(("Authorization", "Bearer \(token)"))
        }
        if request.body != nil { headers.append(("Content-Type", request.contentType ?? "application/json")) }
        var url = homeserver + request.path
        if !request.query.isEmpty {
            url += "?" + request.query.map { "\(MatrixPath.segment($0.name))=\(MatrixPath.segment($0.value))" }
                .joined(separator: "&")
        }
        let wire = TransportRequest(
            method: request.method, url: url, headers: headers, body: request.body,
            timeout: request.timeout ?? configuration.requestTimeout, connectTimeout: configuration.connectTimeout)
        let response: TransportResponse
        do {
            response = try await transport.send(wire)
        } catch let error as TransportError {
            throw IMClientError.transport(error, server: homeserver)
        } catch {
            throw IMClientError.cancelled
        }
        guard response.status >= 400 else { return response }
        throw Self.errorAnswer(response, for: request, homeserver: homeserver)
    }

    /// The error an answer with status >= 400 stands for.
    static func errorAnswer(_ response: TransportResponse, for request: MatrixRequest, homeserver: String) -> IMClientError {
        let body = try? JSONDecoder().decode(MatrixErrorBody.self, from: response.body)
        let headerWait = response.header("Retry-After").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        // Whole seconds, rounded up: waiting a little longer than asked is harmless.
        let bodyWait = body?.retryAfterMilliseconds.map { Int((max(0, $0) + 999) / 1000) }
        let code: ErrorCode
        switch body?.errcode {
        case "M_LIMIT_EXCEEDED"?: code = .rateLimited
        case "M_UNKNOWN_TOKEN"?, "M_MISSING_TOKEN"?: code = .unauthorized
        case "M_FORBIDDEN"?: code = .forbidden
        case "M_NOT_FOUND"?: code = .notFound
        case "M_TOO_LARGE"?: code = .payloadTooLarge
        default: code = ErrorCode(httpStatus: response.status) ?? (response.status >= 500 ? .internalError : .invalidRequest)
        }
        let words = body.map { "\($0.errcode): \($0.error ?? "no reason given")" }
            ?? "HTTP \(response.status): " + String(decoding: response.body.prefix(200), as: UTF8.self)
        let api = APIError(code, words, retryAfter: bodyWait ?? headerWait, reason: body?.errcode)
        return IMClientError(.api(code), "\(homeserver) refused \(request.summary): \(words)", api: api)
    }

    /// Sends `request` and decodes the answer as `T`.
    func call<T: Decodable>(_ request: MatrixRequest, as type: T.Type = T.self) async throws(IMClientError) -> T {
        let response = try await perform(request)
        do {
            return try JSONDecoder().decode(T.self, from: response.body)
        } catch {
            let text = String(decoding: response.body.prefix(200), as: UTF8.self)
            throw IMClientError(.badResponse,
                                "unexpected answer from \(homeserver) to \(request.summary): not a \(T.self) (\(error)); body: \(text)")
        }
    }
}
