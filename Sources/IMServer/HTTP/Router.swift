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
///
/// Runs twice per request (for the body limit, then to answer), so it allocates only
/// for a match: routes are grouped by their number of segments and literals compare as
/// bytes before any parameter is collected.
struct Router: Sendable {
    enum Match {
        case found(Route, [String: String])
        case wrongMethod(allowed: [HTTPMethod])
        case notFound
    }

    /// Routes by segment count, in declaration order.
    private let bySegmentCount: [[Route]]
    /// Whether any route with this many segments has its own body limit.
    private let hasBodyLimit: [Bool]

    init(routes: [Route]) {
        let longest = routes.map(\.segments.count).max() ?? 0
        var groups = [[Route]](repeating: [], count: longest + 1)
        for route in routes { groups[route.segments.count].append(route) }
        bySegmentCount = groups
        hasBodyLimit = groups.map { $0.contains { $0.bodyLimit != nil } }
    }

    func match(_ method: HTTPMethod, _ path: String) -> Match {
        let parts = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true)
        guard parts.count < bySegmentCount.count else { return .notFound }
        var allowed: [HTTPMethod] = []
        for route in bySegmentCount[parts.count] where Self.literalsMatch(route, parts) {
            if route.method == method || (method == .head && route.method == .get) {
                var parameters: [String: String] = [:]
                for (segment, part) in zip(route.segments, parts) {
                    if case .parameter(let name) = segment { parameters[name] = String(Substring(part)) }
                }
                return .found(route, parameters)
            }
            allowed.append(route.method)
        }
        return allowed.isEmpty ? .notFound : .wrongMethod(allowed: allowed)
    }

    /// The body limit of the route a path goes to, without building its parameters; nil
    /// for the server's default.
    func bodyLimit(_ method: HTTPMethod, _ path: String) -> Int? {
        let count = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).count
        guard count < hasBodyLimit.count, hasBodyLimit[count] else { return nil }
        if case .found(let route, _) = match(method, path) { return route.bodyLimit }
        return nil
    }

    private static func literalsMatch(_ route: Route, _ parts: [Substring.UTF8View]) -> Bool {
        for (segment, part) in zip(route.segments, parts) {
            if case .literal(let text) = segment, !part.elementsEqual(text.utf8) { return false }
        }
        return true
    }
}
