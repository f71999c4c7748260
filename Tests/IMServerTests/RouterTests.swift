import HTTPServer
import Testing

@testable import IMServer

/// The router finds routes as they were declared: the first whose literals and method
/// fit, parameters by name, 405's methods, a body limit without building parameters.
@Suite struct RouterTests {
    static func route(_ method: HTTPMethod, _ pattern: String, bodyLimit: Int? = nil) -> Route {
        Route(method, pattern, access: .open, bodyLimit: bodyLimit) { _ in .noContent }
    }

    let router = Router(routes: [
        route(.get, "/healthz"),
        route(.get, "/v1/users/me"),
        route(.get, "/v1/users/:name"),
        route(.put, "/v1/users/:name", bodyLimit: 100),
        route(.post, "/v1/conversations/:c/messages", bodyLimit: 4096),
        route(.get, "/v1/conversations/:c/messages"),
        route(.post, "/v1/media", bodyLimit: 1 << 20),
    ])

    func found(_ method: HTTPMethod, _ path: String) -> (pattern: String, parameters: [String: String])? {
        guard case .found(let route, let parameters) = router.match(method, path) else { return nil }
        return (route.pattern, parameters)
    }

    @Test func literalsAndParametersMatchInDeclarationOrder() throws {
        #expect(found(.get, "/healthz")?.pattern == "/healthz")
        // Declared before the parameter, the literal wins; other names are parameters.
        #expect(found(.get, "/v1/users/me")?.pattern == "/v1/users/me")
        let user = try #require(found(.get, "/v1/users/zoë"))
        #expect(user.pattern == "/v1/users/:name")
        #expect(user.parameters == ["name": "zoë"])
        let messages = try #require(found(.post, "/v1/conversations/group:ops/messages"))
        #expect(messages.parameters == ["c": "group:ops"])
        // Empty segments do not count, as before.
        #expect(found(.get, "//v1//users/bob/")?.parameters == ["name": "bob"])
    }

    @Test func aPathThatFitsNoRouteIsNotFoundAndAWrongMethodSaysWhichFit() {
        for path in ["/", "", "/v1", "/v1/user/bob", "/v1/users/bob/extra", "/v1/conversations/x/message",
                     "/healthzz", "/v1/media/1/2/3/4/5/6/7/8/9"] {
            guard case .notFound = router.match(.get, path) else {
                Issue.record("\(path) should not be found")
                continue
            }
        }
        guard case .wrongMethod(let allowed) = router.match(.delete, "/v1/users/bob") else {
            Issue.record("DELETE of a user should be a wrong method")
            return
        }
        #expect(Set(allowed.map(\.rawValue)) == ["GET", "PUT"])
        // HEAD is answered by the GET route.
        #expect(found(.head, "/v1/users/bob")?.pattern == "/v1/users/:name")
    }

    @Test func theBodyLimitIsTheMatchingRoutes() {
        #expect(router.route(.post, "/v1/conversations/c/messages")?.bodyLimit == 4096)
        #expect(router.route(.get, "/v1/conversations/c/messages")?.bodyLimit == nil)
        #expect(router.route(.put, "/v1/users/bob")?.bodyLimit == 100)
        #expect(router.route(.get, "/v1/users/bob")?.bodyLimit == nil)
        #expect(router.route(.post, "/v1/media")?.bodyLimit == 1 << 20)
        #expect(router.route(.post, "/v1/nothing/here") == nil)
    }
}
