import Foundation
import HTTPServer
import IMProtocol
import SwitchboardCrypto

/// The runner's listener: `/healthz` (`ok`, or `degraded` with the bot files the runner
/// could not take; with journals on the server, who runs each bot), `/metrics` (behind
/// `runner.metrics_token` when one is set, compared in constant time), the operator
/// console (`/console`, ``OperatorConsole``) and the paths bots' services added (webhooks).
///
/// A body may have the size its path allows (a webhook route's `max_body`, 1 MiB by
/// default; the console's explain box 256 KiB) once the headers carry its credential; the
/// runner's own paths take none worth speaking of. Every error, the HTTP library's own
/// (413, 414, 503) included, is the API's JSON envelope.
struct RunnerResponder: HTTPResponder {
    let runner: BotRunner
    let console: OperatorConsole

    init(runner: BotRunner) {
        self.runner = runner
        console = OperatorConsole(runner: runner)
    }

    /// The body limit of the runner's own paths (and of paths nobody serves).
    static let smallBody = 16 * 1024

    /// The body limit of the console's explain box: a webhook body to try.
    static let explainBody = 256 * 1024

    /// A webhook route's body is read only for a request whose headers carry its secret
    /// (a bearer token, Basic credentials: checked in full; a signature: present), up to
    /// its `max_body`; the console's explain box only for a console caller; every other
    /// path takes a small body.
    func admission(for head: RequestHead) -> BodyAdmission {
        if head.path == "/console/api/explain" {
            guard console.logins.caller(head.headers["Authorization"]) != nil else {
                return .refuse(OperatorConsole.error(APIError(
                    .unauthorized, "log in to the console: an administrator's login or the runner's metrics token")))
            }
            return .read(limit: Self.explainBody)
        }
        return runner.routes.admission(for: head) ?? .read(limit: Self.smallBody)
    }

    func errorResponse(status: Int, message: String) -> Response {
        error(ErrorCode(httpStatus: status) ?? (status >= 500 ? .internalError : .invalidRequest), status, message)
    }

    func respond(to request: Request) async -> Response {
        switch (request.method, request.path) {
        case (.get, "/healthz"):
            // 200 also when degraded: the runner works, some bots on old rules (or none);
            // the body says which and why.
            return Response(
                status: 200, headers: ["Content-Type": "application/json"],
                body: runner.healthReport)
        case (.get, "/metrics"):
            guard authorized(request) else {
                return error(.unauthorized, 401, "/metrics needs the runner's metrics token as a bearer token")
            }
            return Response(
                status: 200, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"],
                body: Data(runner.metrics.render().utf8))
        default:
            if let answer = await console.respond(to: request) { return answer }
            if let handler = runner.routes.handler(for: request.path) { return await handler(request) }
            if runner.routes.isDeclared(request.path) {
                // Its bot is starting (or restarting after a reload): the sender retries.
                return WebhookRejection.unavailable(retryAfter: WebhookInbox.retryAfter).response
            }
            return error(.notFound, 404, "no endpoint \(request.path)")
        }
    }

    private func authorized(_ request: Request) -> Bool {
        guard let token = runner.configuration.metricsToken else { return true }
        let given = request.headers["Authorization"].flatMap { value -> String? in
            let parts = value.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
            return String(parts[1])
        } ?? ""
        // Hashing first makes the comparison's length constant too.
        return Digest.constantTimeEqual(Digest.sha256(Array(given.utf8)), Digest.sha256(Array(token.utf8)))
    }

    private func error(_ code: ErrorCode, _ status: Int, _ message: String) -> Response {
        let body = (try? WireJSON.encoder().encode(ErrorEnvelope(error: APIError(code, message)))) ?? Data()
        return Response(status: status, headers: ["Content-Type": "application/json"], body: body)
    }
}
