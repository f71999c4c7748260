import Foundation
import HTTPServer
import IMProtocol

/// The server's `HTTPResponder`: routes each request, checks the login and the budget,
/// runs the handler, and turns every failure into the error envelope.
struct APIResponder: HTTPResponder {
    let core: ServerServices
    let router: Router

    init(core: ServerServices) {
        self.core = core
        self.router = Router(routes: Routes.all)
    }

    /// The Telegram dialect takes forms; the `/v1` API reads JSON whatever the `Content-Type`.
    func decodesForm(for head: RequestHead) -> Bool {
        TelegramGateway.handles(head.path)
    }

    /// The most of a body read before its sender is known: any body of an anonymous
    /// request (registration and login bodies are far smaller), and a logged-in request's
    /// up to this size, whose token is then checked with the request. A larger body is
    /// read only once its token has been checked.
    static let unverifiedBodyBytes = 16 * 1024

    /// Small bodies (most requests have none) are read at once. A larger one is read
    /// only for a route that takes it and a caller it lets in: an open route gets the
    /// small limit, a route needing a login without a bearer token gets 401 at once, and
    /// a token is checked first (`checkedAdmission`), with none of the body read meanwhile.
    /// The Telegram dialect's token is in the path: checked the same way
    /// (`TelegramGateway.checkedAdmission`).
    func admission(for head: RequestHead) -> BodyAdmission {
        let small = min(Self.unverifiedBodyBytes, core.configuration.http.maxBodyBytes)
        if let declared = head.declaredBodyLength, declared <= small { return .read(limit: small) }
        if TelegramGateway.handles(head.path) { return .check }
        guard let route = router.route(head.method, head.path) else { return .read(limit: small) }
        if route.access == .open { return .read(limit: min(route.bodyLimit ?? small, small)) }
        guard let header = head.headers["Authorization"], Authenticator.bearerToken(header) != nil else {
            return .refuse(refusal(head, route: route, Authenticator.missingToken))
        }
        return .check
    }

    /// A large body's token, checked before the body is read: the route's limit for a
    /// caller it lets in, else the refusal (401, 403).
    func checkedAdmission(for head: RequestHead) async -> BodyAdmission {
        if TelegramGateway.handles(head.path) { return await TelegramGateway.checkedAdmission(for: head, core: core) }
        guard let route = router.route(head.method, head.path) else { return .read(limit: Self.unverifiedBodyBytes) }
        do {
            try authorize(try await core.authenticator.authenticate(head.headers["Authorization"]), for: route)
            return .read(limit: route.bodyLimit)
        } catch {
            let (apiError, logged) = ErrorMapping.apiError(for: error)
            core.failures.failed("\(head.method) \(head.path)", route: route.pattern, error: error, logged: logged)
            return .refuse(refusal(head, route: route, apiError))
        }
    }

    /// An answer given before the body, counted as the route's.
    @inline(never)
    private func refusal(_ head: RequestHead, route: Route, _ error: APIError) -> Response {
        let response = Response.error(error)
        core.metrics.recordRequest(method: head.method, route: route.pattern, status: response.status)
        return response
    }

    /// The envelope with the HTTP library's status (a status without a code of its own,
    /// 414 or 431, carries `INVALID_REQUEST`).
    func errorResponse(status: Int, message: String) -> Response {
        let code = ErrorCode(httpStatus: status) ?? (status >= 500 ? .internalError : .invalidRequest)
        var response = Response.error(APIError(code, message))
        response.status = status
        return response
    }

    // Every request's task keeps the async frames of this chain while it waits, a parked
    // poll for up to 50 s; so the async functions here only hold what crosses an await,
    // and the rest (error envelopes, metrics, log lines) is in synchronous helpers whose
    // temporaries live on the thread's stack instead. This took a parked poll's frames
    // from about 7 KiB to about 1 KiB.

    func respond(to request: Request) async -> Response {
        if TelegramGateway.handles(request.path) { return await TelegramGateway.respond(to: request, core: core) }
        let started = core.monotonic()
        guard case .found(let route, let parameters) = router.match(request.method, request.path) else {
            return finish(request, label: "unmatched", unmatched(request), started: started)
        }
        let context: RequestContext
        do {
            let session = route.access == .open ? nil : try await caller(of: request, for: route)
            context = RequestContext(request: request, parameters: parameters, session: session, core: core)
        } catch {
            return finish(request, label: route.pattern, failure(error, request, route: route), started: started)
        }
        let response: Response
        do {
            try Self.refuseRepeatedArguments(request)
            response = try await route.handler(context)
            // Open routes (health, metrics) answer without the store: they end no outage.
            if route.access != .open { core.failures.answered() }
        } catch {
            response = failure(error, request, route: route)
        }
        return finish(request, label: route.pattern, response, started: started)
    }

    /// A `/v1` query argument is one value: given twice (`limit=&limit=-1`) it is refused,
    /// rather than one of the two read and the other ignored.
    static func refuseRepeatedArguments(_ request: Request) throws {
        guard request.path.hasPrefix("/v1/") else { return }
        var seen: Set<String> = []
        for argument in request.query where !seen.insert(argument.name).inserted {
            throw APIError.invalid(argument.name, "\(argument.name) is given more than once: give it once")
        }
    }

    /// The logged-in caller, allowed on this route and within budget. Not inlined, so its
    /// frame (and the token lookup's) is gone by the time the handler runs.
    @inline(never)
    private func caller(of request: Request, for route: Route) async throws -> Session {
        let caller = try await core.authenticator.authenticate(request.headers["Authorization"])
        try admit(caller, to: route)
        return caller
    }

    @inline(never)
    private func admit(_ caller: Session, to route: Route) throws {
        try authorize(caller, for: route)
        try core.spend(route.budget, session: caller)
    }

    /// Whether the caller's role lets it use the route.
    private func authorize(_ caller: Session, for route: Route) throws {
        if route.access == .admin, !caller.isAdmin {
            throw APIError(.forbidden, "only administrators may do this")
        }
        if caller.isLocalAdministrator, route.access != .admin {
            throw APIError(.forbidden, "the local administration credential works only for /v1/admin endpoints")
        }
    }

    /// 404 or 405 for a request no route takes.
    @inline(never)
    private func unmatched(_ request: Request) -> Response {
        if case .wrongMethod(let allowed) = router.match(request.method, request.path) {
            var wrong = Response.error(
                APIError(.methodNotAllowed, "\(request.method) is not allowed on \(request.path)"))
            wrong.headers.add("Allow", allowed.map(\.rawValue).joined(separator: ", "))
            return wrong
        }
        return .error(APIError(.notFound, "no endpoint \(request.path)"))
    }

    /// The error envelope for a failed handler; internal errors are logged.
    @inline(never)
    private func failure(_ error: any Error, _ request: Request, route: Route) -> Response {
        let (apiError, logged) = ErrorMapping.apiError(for: error)
        core.failures.failed("\(request.method) \(request.path)", route: route.pattern, error: error, logged: logged)
        return .error(apiError)
    }

    /// Counts the answer and logs it at debug level.
    @inline(never)
    private func finish(_ request: Request, label: String, _ response: Response, started: Double) -> Response {
        // A deferred answer is counted by whoever sends it.
        guard !response.isDeferred else { return response }
        core.metrics.recordRequest(method: request.method, route: label, status: response.status)
        if core.logger.level <= .debug {
            core.logger.debug(
                "\(request.method) \(request.path) \(response.status)",
                [("ms", String(Int((core.monotonic() - started) * 1000))), ("peer", request.remoteAddress)])
        }
        return response
    }
}
