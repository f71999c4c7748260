import Foundation
@testable import IMBots
import IMClient
import IMProtocol
import TestSupport
import Testing

/// The runner's listener checks a webhook's secret from the headers before it reads any of
/// the body (docs/security.md): tried from outside with only a request head sent,
/// declaring a body of the route's whole limit.
@Suite struct WebhookBeforeBodyTests {
    static func head(path: String = "/hooks/alertmanager", length: Int, headers: [String] = []) -> String {
        (["POST \(path) HTTP/1.1", "Host: t", "Content-Type: application/json", "Content-Length: \(length)"] + headers)
            .joined(separator: "\r\n") + "\r\n\r\n"
    }

    static func answer(_ world: AlertWorld, _ request: String) async throws -> RawResponse {
        let client = try RawHTTPClient(port: world.port)
        try client.send(request)
        return try await client.response()
    }

    @Test func aMissingOrWrongSecretIs401WithNoneOfTheBodyRead() async throws {
        try await withAlertWorld(bot: AlertWorld.bot(rules: AlertWorld.incidentRule)) { world in
            for headers in [[], ["Authorization: Bearer not-the-token"], ["Authorization: Basic YTpi"]] {
                let response = try await Self.answer(world, Self.head(length: 1 << 20, headers: headers))
                #expect(response.status == 401, "\(headers)")
                let error = try JSONDecoder().decode(ErrorEnvelope.self, from: Data(response.body)).error
                #expect(error.code == .unauthorized)
            }
            let metrics = try await world.metrics()
            #expect(metrics.contains(#"outcome="unauthorized"} 3"#))
            // The right secret gets its body read and handled.
            let body = AlertBodies.diskFull([("db-7", .firing)])
            #expect(try await world.post(body).status == 200)
        }
    }

    /// A signed route can only check its signature against the body: a request without
    /// the signature (or its timestamp) is refused before the body, one with them is read.
    @Test func anUnsignedRequestToASignedRouteIs401BeforeTheBody() async throws {
        let webhooks = """
              - path: /hooks/alertmanager
                format: alertmanager
                secret: { grafana_hmac: { secret: a-shared-secret, header: X-Sig } }
            """
        try await withAlertWorld(bot: AlertWorld.bot(rules: AlertWorld.incidentRule, webhooks: webhooks)) { world in
            let unsigned = try await Self.answer(world, Self.head(length: 1 << 20))
            #expect(unsigned.status == 401)
            let untimed = try await Self.answer(world, Self.head(length: 1 << 20, headers: ["X-Sig: 00"]))
            #expect(untimed.status == 401)
            #expect(String(decoding: untimed.body, as: UTF8.self).contains("timestamp"))
        }
    }

    /// Another method is refused before the body too.
    @Test func anotherMethodIs405BeforeTheBody() async throws {
        try await withAlertWorld(bot: AlertWorld.bot(rules: AlertWorld.incidentRule)) { world in
            let request = "PUT /hooks/alertmanager HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(AlertWorld.token)\r\n"
                + "Content-Length: \(1 << 20)\r\n\r\n"
            let response = try await Self.answer(world, request)
            #expect(response.status == 405)
        }
    }
}
