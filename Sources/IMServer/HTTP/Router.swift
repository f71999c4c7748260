import HTTPServer
import IMProtocol

/// Who may call a route.
enum Access: Sendable {
    /// Anyone, without a token.
    case open
    /// A logged-in account.
    case user
    /// A logged-in administrator.
    case admin
}

/// Which request budget a route spends.
enum Budget: Sendable {
    case none
    case general
    case send
}

/// One endpoint: method, path pattern (`/v1/users/:name`), who may call it, and its
/// handler.
struct Route: Sendable {
    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    var method: HTTPMethod
    var pattern: String
    var segments: [Segment]
    var access: Access
    var budget: Budget
    /// Largest body accepted, when it differs from the server's default.
    var bodyLimit: Int?
    var handler: @Sendable (RequestContext) async throws -> Response

    init(
        _ method: HTTPMethod, _ pattern: String, access: Access, budget: Budget = .general, bodyLimit: Int? = nil,
        handler: @escaping @Sendable (RequestContext) async throws -> Response
    ) {
        self.method = method
        self.pattern = pattern
        self.segments = pattern.split(separator: "/").map {
            $0.hasPrefix(":") ? .parameter(String($0.dropFirst())) : .literal(String($0))
        }
        self.access = access
        self.budget = access == .open ? .none : budget
        self.bodyLimit = bodyLimit
        self.handler = handler
    }
}

/// Finds the route for a method and path.
struct Router: Sendable {
    enum Match {
        case found(Route, [String: String])
        case wrongMethod(allowed: [HTTPMethod])
        case notFound
    }

    private let routes: [Route]

    init(routes: [Route]) { self.routes = routes }

    func match(_ method: HTTPMethod, _ path: String) -> Match {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        var allowed: [HTTPMethod] = []
        for route in routes where route.segments.count == parts.count {
            var parameters: [String: String] = [:]
            var matches = true
            for (segment, part) in zip(route.segments, parts) {
                switch segment {
                case .literal(let text): if text != part { matches = false }
                case .parameter(let name): parameters[name] = String(part)
                }
                if !matches { break }
            }
            guard matches else { continue }
            if route.method == method || (method == .head && route.method == .get) {
                return .found(route, parameters)
            }
            allowed.append(route.method)
        }
        return allowed.isEmpty ? .notFound : .wrongMethod(allowed: allowed)
    }
}
