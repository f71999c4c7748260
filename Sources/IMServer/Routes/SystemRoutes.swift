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

    /// A stored image, to anyone who has its id, within the client address's budget of
    /// media bytes. Its id never names other bytes, so it is its `ETag`: a client that
    /// has it sends `If-None-Match` and gets 304, which costs no budget.
    static func media(_ context: RequestContext) async throws -> Response {
        let core = context.core
        let id = try context.parameter("id")
        guard id.count <= 64 else { throw APIError(.notFound, "no media '\(id)'") }
        let etag = "\"\(id)\""
        let cached = context.request.headers["If-None-Match"].map { matches($0, etag) } ?? false
        if !cached { try core.awaitMediaBudget(client: context.client) }
        guard let record = try await core.store.media(id: id) else {
            throw APIError(.notFound, "no media '\(id)'")
        }
        if cached {
            return Response(status: 304, headers: ["ETag": etag, "Cache-Control": cacheControl])
        }
        core.chargeMedia(client: context.client, bytes: record.bytes.count)
        return Response(
            status: 200,
            headers: [
                "Content-Type": record.contentType, "ETag": etag,
                "Cache-Control": cacheControl, "X-Content-Type-Options": "nosniff",
            ],
            body: Data(record.bytes))
    }

    private static let cacheControl = "public, max-age=31536000, immutable"

    /// Whether an `If-None-Match` value (`"a", W/"b"` or `*`) names `etag`.
    static func matches(_ header: String, _ etag: String) -> Bool {
        header.split(separator: ",").contains { tag in
            var tag = tag.trimmingCharacters(in: .whitespaces)
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == etag || tag == "*"
        }
    }
}
