import Foundation
import IMProtocol

/// One API call before it becomes an HTTP request: method, path, query and body.
struct APIRequest: Sendable {
    var method: String
    /// The path, already percent-encoded (build it with `APIPath`).
    var path: String
    var query: [(name: String, value: String)] = []
    var body: Data?
    var contentType: String?
    /// Sends the bearer token; calls that need one fail with `notLoggedIn` without it.
    var authenticated = true
    /// Overrides the configured request timeout (long-polls).
    var timeout: Duration?
    /// Which call this is, for error messages that depend on it.
    var context: IMClientError.APIContext = .general

    init(_ method: String, _ path: String, query: [(name: String, value: String)] = []) {
        self.method = method
        self.path = path
        self.query = query
    }

    /// The same request with a JSON body.
    func json<Body: Encodable>(_ body: Body) throws(IMClientError) -> APIRequest {
        var copy = self
        do {
            copy.body = try WireJSON.encoder().encode(body)
        } catch {
            throw IMClientError(.invalidArgument, "cannot encode the request body: \(error)")
        }
        copy.contentType = "application/json"
        return copy
    }

    /// `METHOD /path`, for messages.
    var summary: String { "\(method) \(path)" }

    /// The full URL on `server`.
    func url(on server: String) -> String {
        guard !query.isEmpty else { return server + path }
        let pairs = query.map { "\(APIPath.encodeQuery($0.name))=\(APIPath.encodeQuery($0.value))" }
        return server + path + "?" + pairs.joined(separator: "&")
    }
}

/// Builds request paths with each dynamic part percent-encoded, so a name can never
/// add a path segment or a query.
enum APIPath {
    private static let unreserved = CharacterSet(
        charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
    private static let segmentAllowed = unreserved.union(CharacterSet(charactersIn: ":@"))
    private static let queryAllowed = unreserved.union(CharacterSet(charactersIn: ":@,"))

    /// One path segment: everything but unreserved characters, `:` and `@` is encoded.
    static func segment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: segmentAllowed) ?? ""
    }

    /// A query name or value: commas stay literal (`names=a,b`).
    static func encodeQuery(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: queryAllowed) ?? ""
    }

    /// The path of a conversation: `/v1/conversations/<address>`.
    static func conversation(_ address: ConversationAddress) -> String {
        "/v1/conversations/" + segment(address.description)
    }
}
