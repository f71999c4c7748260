import Foundation
import HTTPServer
import IMProtocol

/// The server's `HTTPResponder`: routes each request, checks the login and the budget,
/// runs the handler, and turns every failure into the error envelope.
struct APIResponder: HTTPResponder {
    let core: ServerCore
    let router: Router

    init(core: ServerCore) {
        self.core = core
        self.router = Router(routes: Routes.all)
    }

    func bodyLimit(for head: RequestHead) -> Int? {
        router.bodyLimit(head.method, head.path)
    }

    func errorResponse(status: Int, message: String) -> Response {
        let code = ErrorCode.allCases.first { $0.httpStatus == status } ?? .invalidRequest
        return .error(APIError(code, message), encoder: core.encoder)
    }

    func respond(to request: Request) async -> Response {
        let started = core.monotonic()
        var label = "unmatched"
        let response: Response
        switch router.match(request.method, request.path) {
        case .notFound:
            response = .error(APIError(.notFound, "no endpoint \(request.path)"), encoder: core.encoder)
        case .wrongMethod(let allowed):
            var wrong = Response.error(
                APIError(.methodNotAllowed, "\(request.method) is not allowed on \(request.path)"), encoder: core.encoder)
            wrong.headers.add("Allow", allowed.map(\.rawValue).joined(separator: ", "))
            response = wrong
        case .found(let route, let parameters):
            label = route.pattern
            response = await run(route, parameters, request)
        }
        core.metrics.recordRequest(method: request.method.rawValue, route: label, status: response.status)
        if core.logger.level <= .debug {
            core.logger.debug(
                "\(request.method) \(request.path) \(response.status)",
                [("ms", String(Int((core.monotonic() - started) * 1000))), ("peer", request.remoteAddress)])
        }
        return response
    }

    private func run(_ route: Route, _ parameters: [String: String], _ request: Request) async -> Response {
        do {
            var session: Session?
            if route.access != .open {
                let caller = try await core.authenticator.authenticate(request.headers["Authorization"])
                if route.access == .admin, !caller.isAdmin {
                    throw APIError(.forbidden, "only administrators may do this")
                }
                try core.spend(route.budget, session: caller)
                session = caller
            }
            return try await route.handler(
                RequestContext(request: request, parameters: parameters, session: session, core: core))
        } catch {
            let (apiError, isInternal) = ErrorMapping.apiError(for: error)
            if isInternal {
                core.logger.error(
                    "\(request.method) \(request.path) failed: \(String(describing: error))",
                    [("route", route.pattern)])
            }
            return .error(apiError, encoder: core.encoder)
        }
    }
}
