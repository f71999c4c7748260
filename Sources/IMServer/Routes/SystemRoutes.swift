import Foundation
import HTTPServer
import IMProtocol
import SwitchboardCrypto

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
        let request = context.request
        if let token = core.configuration.metricsToken {
            let given = request.headers["Authorization"].flatMap(Authenticator.bearerToken) ?? ""
            // Compared as digests, in constant time: the answer's timing tells nothing of the token.
            guard Digest.constantTimeEqual(Digest.sha256(Array(given.utf8)), Digest.sha256(Array(token.utf8))) else {
                throw APIError(.unauthorized, "metrics need 'Authorization: Bearer <metrics token>'")
            }
        } else if !isLoopback(request.remoteAddress) || request.isForwarded {
            // A request through a proxy on this machine comes from the proxy's loopback
            // address, and says nothing about who sent it.
            throw APIError(
                .forbidden, "metrics are served to loopback clients only (not through a proxy) unless a metrics token is set")
        }
        let samples = [MetricSample.gauge("switchboard_parked_polls", "Event polls parked now.", core.hub.parkedCount)]
            + core.sampleMetrics()
        let text = core.metrics.render(samples: samples)
        return Response(
            status: 200, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"], body: Data(text.utf8))
    }

    /// True for a loopback address or name (`127.0.0.1`, `::1`, `localhost`).
    static func isLoopback(_ address: String) -> Bool {
        var bare = Substring(address)
        if bare.hasPrefix("["), bare.hasSuffix("]") { bare = bare.dropFirst().dropLast() }
        return bare.hasPrefix("127.") || bare == "::1" || bare.hasPrefix("::ffff:127.") || bare == "localhost"
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
