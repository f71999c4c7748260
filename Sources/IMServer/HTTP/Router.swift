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
/// handler. A class, so that the router's walks over the routes copy a reference rather
/// than every field.
final class Route: Sendable {
    enum Segment: Sendable, Equatable {
        /// A fixed part, as its UTF-8 bytes.
        case literal([UInt8])
        case parameter(String)
    }

    let method: HTTPMethod
    let pattern: String
    let segments: [Segment]
    let access: Access
    let budget: Budget
    /// Largest body accepted, when it differs from the server's default.
    let bodyLimit: Int?
    let handler: @Sendable (RequestContext) async throws -> Response

    init(
        _ method: HTTPMethod, _ pattern: String, access: Access, budget: Budget = .general, bodyLimit: Int? = nil,
        handler: @escaping @Sendable (RequestContext) async throws -> Response
    ) {
        self.method = method
        self.pattern = pattern
        self.segments = pattern.split(separator: "/").map {
            $0.hasPrefix(":") ? .parameter(String($0.dropFirst())) : .literal(Array($0.utf8))
        }
        self.access = access
        self.budget = access == .open ? .none : budget
        self.bodyLimit = bodyLimit
        self.handler = handler
    }
}

/// Finds the route for a method and path.
///
/// Runs for every request, so it allocates only for a match: routes are grouped by their
/// number of segments, the path's segments are found once as byte ranges, and literals
/// compare as bytes (lengths first) before any parameter is collected. (Comparing through `Substring.UTF8View`s took about 5% of
/// the server's CPU per send: BENCHMARKS.md, "Event feed".)
struct Router: Sendable {
    enum Match {
        case found(Route, [String: String])
        case wrongMethod(allowed: [HTTPMethod])
        case notFound
    }

    /// Routes by segment count, in declaration order.
    private let bySegmentCount: [[Route]]

    init(routes: [Route]) {
        let longest = routes.map(\.segments.count).max() ?? 0
        var groups = [[Route]](repeating: [], count: longest + 1)
        for route in routes { groups[route.segments.count].append(route) }
        bySegmentCount = groups
    }

    func match(_ method: HTTPMethod, _ path: String) -> Match {
        var path = path
        return path.withUTF8 { bytes in
            let parts = Self.parts(of: bytes)
            guard parts.count < bySegmentCount.count else { return .notFound }
            var allowed: [HTTPMethod] = []
            for route in bySegmentCount[parts.count] where Self.literalsMatch(route, parts, in: bytes) {
                if Self.serves(route, method) {
                    var parameters: [String: String] = [:]
                    for (segment, part) in zip(route.segments, parts) {
                        if case .parameter(let name) = segment {
                            parameters[name] = String(decoding: UnsafeBufferPointer(rebasing: bytes[part]), as: UTF8.self)
                        }
                    }
                    return .found(route, parameters)
                }
                allowed.append(route.method)
            }
            return allowed.isEmpty ? .notFound : .wrongMethod(allowed: allowed)
        }
    }

    /// The route a request goes to, without building its parameters; nil when none takes it.
    func route(_ method: HTTPMethod, _ path: String) -> Route? {
        var path = path
        return path.withUTF8 { bytes in
            let parts = Self.parts(of: bytes)
            guard parts.count < bySegmentCount.count else { return nil }
            return bySegmentCount[parts.count].first {
                Self.serves($0, method) && Self.literalsMatch($0, parts, in: bytes)
            }
        }
    }

    /// The ranges of a path's segments between slashes, empty ones left out.
    private static func parts(of bytes: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        var parts: [Range<Int>] = []
        parts.reserveCapacity(8)
        var start = 0
        for index in 0...bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: "/") {
            if index > start { parts.append(start..<index) }
            start = index + 1
        }
        return parts
    }

    private static func serves(_ route: Route, _ method: HTTPMethod) -> Bool {
        route.method == method || (method == .head && route.method == .get)
    }

    private static func literalsMatch(_ route: Route, _ parts: [Range<Int>], in bytes: UnsafeBufferPointer<UInt8>)
        -> Bool
    {
        for (segment, part) in zip(route.segments, parts) {
            guard case .literal(let literal) = segment else { continue }
            guard part.count == literal.count, bytes[part].elementsEqual(literal) else { return false }
        }
        return true
    }
}
