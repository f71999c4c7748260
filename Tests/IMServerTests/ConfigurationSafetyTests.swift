import Foundation
import HTTPServer
import IMProtocol
import Logging
import SwitchboardCrypto
import TestSupport
import Testing

@testable import IMServer

/// Configuration that would trap, weaken hashing quietly or open `/metrics` (issue 8,
/// items 11, 18, 19 and 20).
@Suite struct ConfigurationSafetyTests {
    static func fileConfig(_ json: String) throws -> ServerFileConfig {
        try JSONDecoder().decode(ServerFileConfig.self, from: Data(json.utf8))
    }

    static func invalidKey(_ json: String) throws -> String? {
        do {
            _ = try fileConfig(json).configuration()
            return nil
        } catch let error as ServerFileConfig.Invalid {
            return error.key
        }
    }

    /// Item 18: sizes are checked before they are converted, so no value traps.
    @Test(arguments: [#"{"memory_kib": -5, "iterations": 1}"#, #"{"memory_kib": 99999999999, "iterations": 1}"#,
                      #"{"memory_kib": 65536, "iterations": 0}"#, #"{"memory_kib": 65536, "iterations": 9999999999}"#])
    func outOfRangeHashingCostsAreRefused(_ hashing: String) throws {
        #expect(try Self.invalidKey(#"{"password_hashing": \#(hashing)}"#) == "password_hashing")
    }

    /// Item 18: a cost below OWASP's floor works, with a warning saying so.
    @Test func aCostBelowTheFloorIsWarnedAbout() async throws {
        try await withServer { server in
            #expect(server.app.configuration.passwordHasher.isBelowOWASPMinimum)
            #expect(server.logs.lines.contains { $0.level == .warning && $0.message.contains("below OWASP's minimum") })
        }
        let standard = try withServerConfig { _ in }
        #expect(!standard.passwordHasher.isBelowOWASPMinimum)
    }

    /// Item 18: start-up fails when the configured cost cannot hash at all.
    @Test func aCostThatCannotHashStopsStartUp() async throws {
        var config = TestServer.configuration(directory: TestServer.temporaryDirectory())
        defer { try? FileManager.default.removeItem(atPath: config.dataDirectory) }
        config.passwordHasher = PasswordHasher(memoryKiB: 1, iterations: 1, parallelism: 1)
        let error = await #expect(throws: ServerStartError.self) {
            _ = try await IMServerApp(configuration: config, logger: Logger(label: "t", sink: MemoryLogSink()))
        }
        #expect(error?.message.contains("cannot hash passwords with the configured cost") == true)
    }

    /// Item 19: rates that cannot be are refused; a tiny one makes a long but finite wait.
    @Test func ratesAreCheckedAndWaitsClamped() async throws {
        #expect(try Self.invalidKey(#"{"rate_limits": {"send_per_second": 0}}"#) == "rate_limits.send_per_second")
        #expect(try Self.invalidKey(#"{"rate_limits": {"requests_per_second": -1}}"#) == "rate_limits.requests_per_second")
        #expect(RetryAfter.seconds(1e300) == 86_400)
        #expect(RetryAfter.seconds(.nan) == 86_400)
        #expect(RetryAfter.seconds(.infinity) == 86_400)
        #expect(RetryAfter.seconds(0.01) == 1)
        try await withServer({ config in
            config.rateLimits.enabled = true
            config.rateLimits.send = .init(rate: 1e-300, burst: 1)
        }) { server in
            let (alice, _) = try await server.client.register("alice")
            _ = try await server.client.register("bob")
            try await alice.message("user:bob", "one")
            let second = try await alice.send("POST", "/v1/conversations/user:bob/messages", json: SendMessageRequest(text: "two"))
            expectError(second, .rateLimited)
            #expect(second.error?.retryAfter == 86_400)
        }
        #expect(try Self.invalidKey(#"{"token_lifetime": "3651d"}"#) == "token_lifetime")
        #expect(try Self.fileConfig(#"{"idle_timeout": "100w"}"#).configuration().http.idleTimeout == 86_400)
    }

    /// Item 20: the metrics token is compared in constant time, as a digest; anything
    /// but the exact token is 401.
    @Test func theMetricsTokenMustMatchExactly() async throws {
        let token = "0123456789abcdef-metrics"
        try await withServer({ $0.metricsToken = token }) { server in
            for given in [nil, "0123456789abcdef-metricX", "0123456789abcdef", token + "x", "bearer"] {
                let headers = given.map { [(name: "Authorization", value: "Bearer \($0)")] } ?? []
                expectError(try await server.client.send("GET", "/metrics", headers: headers), .unauthorized)
            }
            let right = try await server.client.send("GET", "/metrics", headers: [("Authorization", "Bearer \(token)")])
            expectStatus(right, 200)
        }
        #expect(try Self.invalidKey(#"{"metrics_token": "short"}"#) == "metrics_token")
    }

    /// Item 11: `/metrics` needs a token when the listener is reachable from elsewhere,
    /// and a request through a proxy is never taken for a local one.
    @Test func metricsAreNotOpenedByAListenerOrAProxy() async throws {
        var config = TestServer.configuration(directory: TestServer.temporaryDirectory())
        defer { try? FileManager.default.removeItem(atPath: config.dataDirectory) }
        config.http.host = "0.0.0.0"
        let error = await #expect(throws: ServerStartError.self) {
            _ = try await IMServerApp(configuration: config, logger: Logger(label: "t", sink: MemoryLogSink()))
        }
        #expect(error?.message.contains("metrics_token") == true)

        try await withServer { server in
            expectStatus(try await server.client.get("/metrics"), 200)
            let proxied = try await server.client.send("GET", "/metrics", headers: [("X-Forwarded-For", "203.0.113.9")])
            expectError(proxied, .forbidden)
        }
    }

    /// Item 11: `trusted_proxies` takes addresses and CIDR blocks, and says what is wrong.
    @Test func trustedProxiesAreParsed() throws {
        let config = try Self.fileConfig(#"{"trusted_proxies": ["10.0.0.0/8", "::1", "192.168.1.7"]}"#).configuration()
        #expect(config.http.trustedProxies.map(\.description) == ["10.0.0.0/8", "::1", "192.168.1.7"])
        #expect(try Self.invalidKey(#"{"trusted_proxies": ["10.0.0.0/33"]}"#) == "trusted_proxies")
        #expect(try Self.invalidKey(#"{"trusted_proxies": ["proxy.example.com"]}"#) == "trusted_proxies")
    }

    /// Item 11: behind a trusted proxy, budgets per address are the forwarded client's.
    @Test func registrationBudgetsAreThoseOfTheForwardedClient() async throws {
        try await withServer({ config in
            config.http.trustedProxies = [IPAddressRange("127.0.0.0/8")!]
            config.rateLimits.enabled = true
            config.rateLimits.register = .init(rate: 0.0001, burst: 2)
        }) { server in
            func register(_ name: String, from address: String) async throws -> TestClient.Answer {
                let body = try WireJSON.encoder().encode(RegisterRequest(username: name, password: "long enough pw"))
                return try await server.client.send(
                    "POST", "/v1/register", body: body, headers: [("X-Forwarded-For", "198.51.100.1, \(address)")])
            }
            expectStatus(try await register("a1", from: "203.0.113.1"), 201)
            expectStatus(try await register("a2", from: "203.0.113.1"), 201)
            expectError(try await register("a3", from: "203.0.113.1"), .rateLimited)
            expectStatus(try await register("b1", from: "203.0.113.2"), 201)
        }
    }

    private func withServerConfig(_ configure: (inout ServerConfiguration) -> Void) throws -> ServerConfiguration {
        var config = ServerConfiguration()
        configure(&config)
        return config
    }
}
