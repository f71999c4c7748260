import Foundation

/// An HTTP method.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let get = HTTPMethod(rawValue: "GET")
    public static let head = HTTPMethod(rawValue: "HEAD")
    public static let post = HTTPMethod(rawValue: "POST")
    public static let put = HTTPMethod(rawValue: "PUT")
    public static let patch = HTTPMethod(rawValue: "PATCH")
    public static let delete = HTTPMethod(rawValue: "DELETE")
    public static let options = HTTPMethod(rawValue: "OPTIONS")

    public var description: String { rawValue }
}

/// Header fields; names compare case-insensitively, order is kept.
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var fields: [(name: String, value: String)]

    public init(_ fields: [(name: String, value: String)] = []) { self.fields = fields }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.fields = elements.map { (name: $0.0, value: $0.1) }
    }

    /// The first value of a field, or nil.
    public subscript(name: String) -> String? {
        fields.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }

    public mutating func add(_ name: String, _ value: String) { fields.append((name, value)) }

    /// Replaces every field of this name with one value.
    public mutating func set(_ name: String, _ value: String) {
        fields.removeAll { $0.name.equalsIgnoringASCIICase(name) }
        fields.append((name, value))
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }
}

extension String {
    /// Compares field names, which are ASCII: cheaper than a locale-aware comparison on a
    /// path taken several times per request.
    fileprivate func equalsIgnoringASCIICase(_ other: String) -> Bool {
        var left = utf8.makeIterator()
        var right = other.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil):
                return true
            case let (a?, b?):
                if a == b { continue }
                let lower = a | 0x20
                guard lower == b | 0x20, (0x61...0x7A).contains(lower) else { return false }
            default:
                return false
            }
        }
    }
}

/// What is known of a request before its body is read: enough to decide whether to read
/// it, and how much of it.
public struct RequestHead: Sendable {
    public var method: HTTPMethod
    /// The path without the query string, percent-decoded by the HTTP library.
    public var path: String
    public var headers: HTTPHeaders
    /// The body's length as `Content-Length` declares it, 0 for a request without a body,
    /// nil for a chunked body (whose length is known only once it has all arrived).
    public var declaredBodyLength: Int?

    public init(method: HTTPMethod, path: String, headers: HTTPHeaders, declaredBodyLength: Int? = 0) {
        self.method = method
        self.path = path
        self.headers = headers
        self.declaredBodyLength = declaredBodyLength
    }
}

/// What the server does with a request once its headers are in, before any of its body
/// is read: a responder checks what it can from the head (who is asking, where to) so that
/// nobody it would refuse gets a body buffered.
public enum BodyAdmission: Sendable {
    /// Read a body of at most `limit` bytes (nil: the server's `maxBodyBytes`); a larger
    /// `Content-Length`, or a chunked body that grows past it, gets 413.
    case read(limit: Int?)
    /// Answer with this at once, reading none of the body; the connection is closed after
    /// the answer (its unread body would otherwise be taken for the next request).
    case refuse(Response)
    /// Decide with `checkedAdmission(for:)`, which may wait (for a store, say); none of the
    /// body is read meanwhile.
    case check
}

/// A complete request, handed to an `HTTPResponder` once its body has been read.
public struct Request: Sendable {
    public var method: HTTPMethod
    /// The path without the query string.
    public var path: String
    /// Query arguments in order (`?a=1&b=2`), percent-decoded.
    public var query: [(name: String, value: String)]
    public var headers: HTTPHeaders
    public var body: Data
    /// The fields of a form body (URL-encoded or multipart), decoded by libmicrohttpd;
    /// nil unless the responder asked for them (`decodesForm(for:)`) and the body is one.
    public var form: [FormField]?
    /// The client's address, e.g. `127.0.0.1`: the TCP peer's, or, for a request from a
    /// trusted proxy, the client its `X-Forwarded-For` names.
    public var remoteAddress: String
    /// The TCP peer's address (a proxy's, when the request came through one).
    public var peerAddress: String
    /// The connection a deferred answer goes out on; nil for requests made up in tests.
    let connection: ConnectionLink?

    public init(
        method: HTTPMethod, path: String, query: [(name: String, value: String)] = [],
        headers: HTTPHeaders = [:], body: Data = Data(), remoteAddress: String = "127.0.0.1",
        peerAddress: String? = nil
    ) {
        self.init(
            method: method, path: path, query: query, headers: headers, body: body,
            remoteAddress: remoteAddress, peerAddress: peerAddress ?? remoteAddress, connection: nil)
    }

    init(
        method: HTTPMethod, path: String, query: [(name: String, value: String)],
        headers: HTTPHeaders, body: Data, remoteAddress: String, peerAddress: String, connection: ConnectionLink?
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
        self.peerAddress = peerAddress
        self.connection = connection
    }

    /// True when the request came through a proxy: the peer is a trusted proxy, or the
    /// request carries forwarding headers from a peer that is not trusted (then its
    /// `remoteAddress` is the proxy's, and says nothing about the client).
    public var isForwarded: Bool {
        remoteAddress != peerAddress || headers["X-Forwarded-For"] != nil || headers["Forwarded"] != nil
    }

    /// The first value of a query argument.
    public func query(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }
}

/// A response. The server adds `Content-Length` and `Date`.
public struct Response: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: Data
    /// Set on a `DeferredResponse`'s marker: the answer comes through it later.
    var deferral: DeferredResponse?

    public init(status: Int, headers: HTTPHeaders = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Answers requests. Called on the cooperative pool, one task per request; many may
/// run at once.
public protocol HTTPResponder: Sendable {
    /// Produces the response to a request whose body has been read completely.
    func respond(to request: Request) async -> Response

    /// Whether to read the body of this request, and how much of it. Called on the HTTP
    /// library's thread once the headers are in, before any of the body is read: it must
    /// not wait (return `.check` to decide in `checkedAdmission(for:)` instead).
    func admission(for head: RequestHead) -> BodyAdmission

    /// The decision `admission(for:)` put off with `.check`, made in a task while the
    /// connection waits with none of the body read. `.check` again counts as
    /// `.read(limit: nil)`.
    func checkedAdmission(for head: RequestHead) async -> BodyAdmission

    /// The response for an error the server produces itself (413, 431, 503 while
    /// shutting down), so every error has the responder's format.
    func errorResponse(status: Int, message: String) -> Response

    /// Whether a form body of this request is decoded into `Request.form` (nil: not).
    func decodesForm(for head: RequestHead) -> Bool
}

extension HTTPResponder {
    public func admission(for head: RequestHead) -> BodyAdmission { .read(limit: nil) }

    public func checkedAdmission(for head: RequestHead) async -> BodyAdmission { .read(limit: nil) }

    public func decodesForm(for head: RequestHead) -> Bool { false }

    public func errorResponse(status: Int, message: String) -> Response {
        Response(
            status: status, headers: ["Content-Type": "text/plain; charset=utf-8"],
            body: Data((message + "\n").utf8))
    }
}
