import Foundation
import HTTPServer
import IMProtocol
import IMStore

extension Response {
    /// A JSON response encoded by `encoder`.
    ///
    /// An event batch still goes to `WireWriter` here: the events answer is to get a
    /// constructor of its own, like `message(_:status:)`.
    static func json<T: Encodable>(_ value: T, status: Int = 200, encoder: JSONEncoder) throws -> Response {
        if let batch = value as? EventBatch {
            return jsonBody(try WireWriter.encode(batch, fallback: encoder), status: status)
        }
        return jsonBody(try encoder.encode(value), status: status)
    }

    /// A sent message, written by `WireWriter` (the hot path of every send).
    static func message(_ message: Message, status: Int) -> Response {
        jsonBody(WireWriter.encode(message), status: status)
    }

    /// A page of history, written by `WireWriter`.
    static func messages(_ page: MessagePage) -> Response {
        jsonBody(WireWriter.encode(page))
    }

    /// The conversation list, written by `WireWriter`.
    static func conversations(_ list: ConversationList) -> Response {
        jsonBody(WireWriter.encode(list))
    }

    /// A profile, written by `WireWriter`.
    static func user(_ user: User, status: Int = 200) -> Response {
        jsonBody(WireWriter.encode(user), status: status)
    }

    /// A list of profiles, written by `WireWriter`.
    static func users(_ list: UserList) -> Response {
        jsonBody(WireWriter.encode(list))
    }

    /// A group's members, written by `WireWriter`.
    static func members(_ list: MemberList) -> Response {
        jsonBody(WireWriter.encode(list))
    }

    /// A JSON body that is already encoded.
    static func jsonBody(_ body: Data, status: Int = 200) -> Response {
        Response(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    /// The error envelope (written by `WireWriter`), with `Retry-After` when the error
    /// carries one.
    static func error(_ error: APIError) -> Response {
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        if let retryAfter = error.retryAfter { headers.add("Retry-After", String(retryAfter)) }
        if error.code == .unauthorized { headers.add("WWW-Authenticate", "Bearer") }
        return Response(
            status: error.code.httpStatus, headers: headers, body: WireWriter.encode(ErrorEnvelope(error: error)))
    }

    /// 204 with no body.
    static let noContent = Response(status: 204)
}
