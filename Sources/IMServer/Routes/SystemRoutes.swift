import Foundation
import HTTPServer
import IMProtocol

/// Liveness, metrics and stored media.
enum SystemRoutes {
    static let routes: [Route] = [
        Route(.get, "/healthz", access: .open, handler: health),
        Route(.get, "/metrics", access: .open, handler: metrics),
        Route(.get, "/v1/media/:id", access: .open, handler: media),
    ]

    static func health(_ context: RequestContext) async throws -> Response {
        Response(status: 200, headers: ["Content-Type": "application/json"], body: Data(#"{"status":"ok"}"#.utf8))
    }

    static func metrics(_ context: RequestContext) async throws -> Response {
        let core = context.core
        if let token = core.configuration.metricsToken {
            guard context.request.headers["Authorization"] == "Bearer \(token)" else {
                throw APIError(.unauthorized, "metrics need 'Authorization: Bearer <metrics token>'")
            }
        } else if !isLoopback(context.request.remoteAddress) {
            throw APIError(.forbidden, "metrics are served to loopback clients only unless a metrics token is set")
        }
        var gauges: [(name: String, help: String, value: Int)] = [
            ("switchboard_parked_polls", "Event polls parked now.", core.hub.parkedCount)
        ]
        gauges += core.gauges()
        let text = core.metrics.render(gauges: gauges)
        return Response(
            status: 200, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"], body: Data(text.utf8))
    }

    static func isLoopback(_ address: String) -> Bool {
        address.hasPrefix("127.") || address == "::1" || address.hasPrefix("::ffff:127.")
    }

    static func media(_ context: RequestContext) async throws -> Response {
        let id = try context.parameter("id")
        guard id.count <= 64, let record = try await context.core.store.media(id: id) else {
            throw APIError(.notFound, "no media '\(id)'")
        }
        let etag = "\"\(record.id)\""
        if context.request.headers["If-None-Match"] == etag {
            return Response(status: 304, headers: ["ETag": etag])
        }
        return Response(
            status: 200,
            headers: [
                "Content-Type": record.contentType, "ETag": etag,
                "Cache-Control": "public, max-age=31536000, immutable", "X-Content-Type-Options": "nosniff",
            ],
            body: Data(record.bytes))
    }
}
