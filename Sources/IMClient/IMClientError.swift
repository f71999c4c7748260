import IMProtocol

/// Every failure of the client core: an error answer from the server, no answer at all,
/// an answer that made no sense, or local storage that could not be written.
///
/// Branch on `code`; `message` is for people and names the cause. The server's own
/// error (code, reason, `retry_after`) stays available in `api`, the transport's in
/// `transport`.
public struct IMClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable kind of failure.
    public enum Code: Hashable, Sendable, CustomStringConvertible {
        /// The server answered with an error; `api` holds it.
        case api(ErrorCode)
        /// This login was ended because the account logged in elsewhere (a `kicked_out`
        /// event, or a 401 with reason `kicked_out`).
        case kickedOut
        /// The server could not be reached (refused, unresolvable, TLS failure, bad URL).
        case unreachable
        /// No complete answer arrived in time.
        case timedOut
        /// The connection broke before the answer was complete: the server may have acted.
        case connectionLost
        /// The calling task was cancelled.
        case cancelled
        /// Any other transport failure (e.g. an answer over the size limit).
        case transport
        /// The server's answer was not what the API promises (wrong JSON, unexpected status).
        case badResponse
        /// The call needs a login and this client has no token.
        case notLoggedIn
        /// An argument was rejected before anything was sent.
        case invalidArgument
        /// A local file (profile store, cursor, avatar cache) could not be read or written.
        case localStorage
        /// The group takes requests (`join: approval`): the caller's request to join was
        /// recorded and waits for an admin (`joinGroup`; `join(group:)` reports it as a value).
        case awaitingApproval

        /// The code as one word, e.g. `NOT_FOUND` or `UNREACHABLE`.
        public var description: String {
            switch self {
            case .api(let code): code.rawValue
            case .kickedOut: "KICKED_OUT"
            case .unreachable: "UNREACHABLE"
            case .timedOut: "TIMED_OUT"
            case .connectionLost: "CONNECTION_LOST"
            case .cancelled: "CANCELLED"
            case .transport: "TRANSPORT"
            case .badResponse: "BAD_RESPONSE"
            case .notLoggedIn: "NOT_LOGGED_IN"
            case .invalidArgument: "INVALID_ARGUMENT"
            case .localStorage: "LOCAL_STORAGE"
            case .awaitingApproval: "AWAITING_APPROVAL"
            }
        }
    }

    /// The stable kind of failure.
    public var code: Code
    /// A sentence a person can act on.
    public var message: String
    /// The server's error, when it answered with one.
    public var api: APIError?
    /// The transport's error, when no answer arrived.
    public var transport: TransportError?

    /// Creates an error; most come from the mapping helpers below.
    public init(_ code: Code, _ message: String, api: APIError? = nil, transport: TransportError? = nil) {
        self.code = code
        self.message = message
        self.api = api
        self.transport = transport
    }

    /// The message.
    public var description: String { message }

    /// The server's error code, when the server answered with an error.
    public var apiCode: ErrorCode? { api?.code }

    /// Seconds the server asked to wait before trying again (`RATE_LIMITED`, `UNAVAILABLE`).
    public var retryAfter: Int? { api?.retryAfter }

    /// True when trying the same request again later may succeed: no answer, a lost
    /// connection, or a server that asked to wait.
    public var isTransient: Bool {
        switch code {
        case .unreachable, .timedOut, .connectionLost: true
        case .api(.rateLimited), .api(.unavailable), .api(.internalError): true
        default: false
        }
    }
}

extension IMClientError {
    /// Wraps a transport failure, naming the server by its URL.
    ///
    /// `server not reachable at http://127.0.0.1:8080 (connection refused)`.
    public static func transport(_ error: TransportError, server: String) -> IMClientError {
        let cause = error.parentheticalCause.map { " (\($0))" } ?? ""
        switch error.code {
        case .cannotConnect:
            return IMClientError(.unreachable, "server not reachable at \(server)\(cause)", transport: error)
        case .tls, .invalidURL:
            return IMClientError(.unreachable, "server not reachable at \(server): \(error.message)", transport: error)
        case .timedOut:
            return IMClientError(.timedOut, "no answer from \(server) in time\(cause)", transport: error)
        case .connectionLost:
            return IMClientError(
                .connectionLost, "connection to \(server) lost before the answer arrived\(cause)", transport: error)
        case .cancelled:
            return IMClientError(.cancelled, "request to \(server) cancelled", transport: error)
        case .tooLarge, .other:
            return IMClientError(.transport, error.message, transport: error)
        }
    }

    /// Wraps an error answer; `context` refines messages whose meaning depends on the call.
    static func api(_ error: APIError, context: APIContext = .general) -> IMClientError {
        if error.code == .unauthorized, error.reason == "kicked_out" {
            return IMClientError(.kickedOut, "logged in elsewhere: \(error.message)", api: error)
        }
        switch context {
        case .login(let username) where error.code == .unauthorized && error.reason == "bad_credentials":
            return IMClientError(
                .api(.unauthorized), "wrong password for \(username) (or no account with that name)", api: error)
        case .register(let username) where error.code == .conflict:
            return IMClientError(.api(.conflict), "the username '\(username)' is taken: pick another", api: error)
        case .events where error.code == .conflict:
            return IMClientError(.api(.conflict), "another client is using this login", api: error)
        default:
            return IMClientError(.api(error.code), error.message, api: error)
        }
    }

    /// Which call an error answer belongs to, for messages that depend on it.
    enum APIContext {
        case general
        case login(String)
        case register(String)
        case events
    }

    /// A call that needs a login was made without a token.
    static let notLoggedIn = IMClientError(.notLoggedIn, "not logged in: log in or register first")

    /// The task was cancelled while waiting.
    public static let cancelled = IMClientError(.cancelled, "cancelled")
}

extension TransportError {
    /// The text in the message's last parentheses: the system's words for the cause,
    /// e.g. `connection refused`.
    var parentheticalCause: String? {
        guard message.hasSuffix(")"), let open = message.lastIndex(of: "(") else { return nil }
        let inner = message[message.index(after: open)..<message.index(before: message.endIndex)]
        return inner.isEmpty ? nil : String(inner)
    }
}
