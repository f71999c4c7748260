import Foundation
import IMProtocol
import TestSupport
import Testing

/// Requests a hostile client sends by hand, against a real server on 127.0.0.1: invented
/// methods (which must not break `/metrics` nor add series to it) and queries of many
/// arguments (answered at once, never left hanging).
@Suite struct HostileRequestTests {
    static func raw(_ server: TestServer, _ request: String) async throws -> RawResponse {
        let client = try RawHTTPClient(port: server.app.port)
        try client.send(request)
        return try await client.response()
    }

    @Test(.enabled(if: Promtool.isInstalled, Comment(rawValue: Promtool.missing)))
    func inventedMethodsCountAsOtherAndMetricsStayClean() async throws {
        try await withServer { server in
            for method in [#"GE"T"#, "FOO", #"B\AR"#, "PROPFIND", "get"] {
                let response = try await Self.raw(server, "\(method) /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
                #expect(response.status == 405 || response.status == 400, "\(method): \(response.status)")
            }
            _ = try await Self.raw(server, "GET /v1/\"quoted\\path HTTP/1.1\r\nHost: t\r\n\r\n")

            let answer = try await server.client.get("/metrics")
            expectStatus(answer, 200)
            let requests = answer.text.split(separator: "\n").filter { $0.hasPrefix("switchboard_http_requests_total{") }
            let methods = Set(requests.compactMap { line in
                line.split(separator: "\"").dropFirst().first.map(String.init)
            })
            #expect(methods.isSubset(of: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "other"]), "\(methods)")
            #expect(methods.contains("other"))
            let (status, complaints) = try await Promtool.check(answer.body, folder: server.directory)
            #expect(status == 0 && complaints.isEmpty, "promtool check metrics: \(complaints)\n\(answer.text)")
        }
    }

    /// About a hundred query arguments or more used to exhaust the connection's memory in
    /// the HTTP library, which then left the client unanswered; now they get the error
    /// envelope with 414 at once.
    @Test(arguments: [100, 150, 1000])
    func manyQueryArgumentsAreAnswered414AtOnce(count: Int) async throws {
        try await withServer { server in
            let (alice, _) = try await server.client.register("alice")
            let query = (0..<count).map { "a=\($0 % 10)" }.joined(separator: "&")
            let response = try await Self.raw(
                server, "GET /v1/events?\(query) HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(alice.token ?? "")\r\n\r\n")
            #expect(response.status == 414)
            let envelope = try WireJSON.decoder().decode(ErrorEnvelope.self, from: Data(response.body))
            #expect(envelope.error.code == .invalidRequest)
            #expect(envelope.error.message == "too many query arguments (at most 64)")
            // The server goes on.
            expectStatus(try await alice.get("/v1/me"), 200)
        }
    }
}
