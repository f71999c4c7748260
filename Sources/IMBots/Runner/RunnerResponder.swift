import Foundation
import HTTPServer
import IMProtocol
import SwitchboardCrypto

/// The runner's listener: `/healthz`, `/metrics` (behind `runner.metrics_token` when one
/// is set, compared in constant time), and the paths bots' services added (webhooks).
struct RunnerResponder: HTTPResponder {
    let runner: BotRunner

    func respond(to request: Request) async -> Response {
        switch (request.method, request.path) {
        case (.get, "/healthz"):
            let names = runner.botNames.map { "\"\($0)\"" }.joined(separator: ",")
            return Response(
                status: 200, headers: ["Content-Type": "application/json"],
                body: Data(#"{"status":"ok","bots":[\#(names)]}"#.utf8))
        case (.get, "/metrics"):
            guard authorized(request) else {
                return error(.unauthorized, 401, "/metrics needs the runner's metrics token as a bearer token")
            }
            return Response(
                status: 200, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"],
                body: Data(runner.metrics.render().utf8))
        default:
            if let handler = runner.routes.handler(for: request.path) { return await handler(request) }
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
