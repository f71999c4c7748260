import Foundation
import IMProtocol
import TestSupport
import Testing

@Suite(.sharedServer) struct SystemTests {
    let server: TestServer
    init() throws { server = try SharedServer.current }

    @Test func healthzAnswersWithoutALogin() async throws {
        let answer = try await server.client.get("/healthz")
        expectStatus(answer, 200)
        #expect(answer.text == #"{"status":"ok"}"#)
    }

    @Test func metricsAreInPrometheusTextFormatWithTheCounters() async throws {
        let (alice, _) = try await server.client.newUser("counted")
        let (_, bob) = try await server.client.newUser("bob")
        let before = try #require(try await server.metric("switchboard_messages_sent_total"))
        try await alice.message("user:\(bob.username)", "count me")

        let answer = try await server.client.get("/metrics")
        expectStatus(answer, 200)
        #expect(answer.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
        let text = answer.text
        for name in [
            "switchboard_messages_sent_total", "switchboard_events_delivered_total", "switchboard_login_failures_total",
            "switchboard_rate_limited_total", "switchboard_polls_replaced_total", "switchboard_parked_polls",
            "switchboard_http_open_connections", "switchboard_http_in_flight_requests",
        ] {
            #expect(text.contains("# TYPE \(name) "), "missing \(name)")
            #expect(text.contains("\n\(name) "), "no sample for \(name)")
        }
        #expect(text.contains(#"switchboard_http_requests_total{method="POST",route="/v1/conversations/:c/messages",status="201"}"#))
        #expect(try #require(try await server.metric("switchboard_messages_sent_total")) >= before + 1)
        // Every line is a comment or a sample `name{labels} value`.
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            #expect(parts.count == 2 && Double(parts[1]) != nil, "not a sample: \(line)")
        }
    }

    @Test func aResendIsNotCountedAsASentMessage() async throws {
        try await withServer { server in
            let (alice, _) = try await server.client.register("alice")
            _ = try await server.client.register("bob")
            try await alice.message("user:bob", "once", clientID: "k")
            let again = try await alice.send(
                "POST", "/v1/conversations/user:bob/messages", json: SendMessageRequest(text: "once", clientMessageID: "k"))
            expectStatus(again, 200)
            #expect(try await server.metric("switchboard_messages_sent_total") == 1)
        }
    }

    @Test func metricsNeedTheTokenWhenOneIsSet() async throws {
        try await withServer({ $0.metricsToken = "scrape-secret" }) { server in
            expectError(try await server.client.get("/metrics"), .unauthorized)
            let wrong = try await server.client.send("GET", "/metrics", headers: [("Authorization", "Bearer nope")])
            expectError(wrong, .unauthorized)
            // A user's token is not the metrics token.
            let (alice, _) = try await server.client.register("alice")
            expectError(try await alice.get("/metrics"), .unauthorized)
            #expect(try await server.metric("switchboard_parked_polls", token: "scrape-secret") == 0)
        }
    }
}
