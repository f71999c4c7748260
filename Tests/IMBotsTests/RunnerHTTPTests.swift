#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HTTPServer
@testable import IMBots
import IMClient
import IMProtocol
import Lifecycle
import TestSupport
import Testing

extension ServerSuites {
    /// The `http` action against a real endpoint on 127.0.0.1: loopback is refused unless the
    /// runner's `http.allow` lists it (judged on the address connected, so a host name does
    /// not get around it), values cannot change the URL's shape, redirects are not followed,
    /// and a slow endpoint holds up only its own conversation.
    @Suite(.timeLimit(.minutes(3))) struct RunnerHTTPTests {
        static func fetchBot(_ url: String) -> String {
            """
            bot: fetcher
            account: { username: fetcher, password: fetcher-password, register: true }
            limits: { per_conversation: 1000/s, per_group: 1000/s, total: 1000/s }
            on_start: { backlog: all }
            rules:
              - name: fetch
                when: { command: fetch }
                do:
                  - http: { url: "\(url)", as: page }
                  - reply: "{{page.status}} {{page.text}}"
              - name: echo
                when: { direct: true, not: { command: fetch } }
                do: [ { reply: "echo: {{message.text}}" } ]
            """
        }

        /// Runs `body` with a server, alice, and the fetch bot calling `url` (PORT: the endpoint's).
        func withFetcher(url: String, allow: [String] = [],
                         answer: @escaping @Sendable (Request, Latch) async -> Response = { _, _ in
                             Response(status: 200, headers: ["Content-Type": "text/plain"], body: Data("hello".utf8))
                         },
                         _ body: (Endpoint, RunningRunner, TestClient, TestServer) async throws -> Void) async throws {
            try await withEndpoint(answer) { endpoint in
                try await withBotsFolder { server, fixture, adminToken in
                    try fixture.write(Self.fetchBot(url.replacingOccurrences(of: "PORT", with: "\(endpoint.port)")),
                                      as: "fetcher.yaml")
                    let configuration = fixture.configuration(server: server, adminToken: adminToken,
                                                              httpAllow: try HTTPAllowList(allow))
                    try await withRunningRunner(configuration) { running in
                        let (alice, _) = try await server.client.register("alice")
                        try await alice.awaitUser("fetcher")
                        try await server.awaitParkedPolls(1)
                        try await body(endpoint, running, alice, server)
                    }
                }
            }
        }

        @Test func aLoopbackEndpointIsRefusedWithAReasonUnlessAllowed() async throws {
            try await withFetcher(url: "http://127.0.0.1:PORT/page") { endpoint, running, alice, _ in
                try await alice.say("/fetch", to: "fetcher")
                try await running.logs.line(containing: "127.0.0.1 is at 127.0.0.1, a loopback address, which http actions may not reach; list it in runner.http.allow")
                #expect(endpoint.received.isEmpty)
                // The rule's later actions were skipped: no reply came.
                let start = try await alice.cursorNow()
                try await alice.say("still here?", to: "fetcher")
                #expect(try await alice.messages(from: "fetcher", count: 1, after: start) == ["echo: still here?"])
            }
            try await withFetcher(url: "http://127.0.0.1:PORT/page", allow: ["127.0.0.1"]) { endpoint, _, alice, _ in
                let start = try await alice.cursorNow()
                try await alice.say("/fetch", to: "fetcher")
                #expect(try await alice.messages(from: "fetcher", count: 1, after: start) == ["200 hello"])
                #expect(endpoint.received.count == 1)
            }
        }

        @Test func aHostNameThatResolvesToLoopbackIsRefusedToo() async throws {
            try await withFetcher(url: "http://localhost:PORT/page", allow: ["example.com"]) { endpoint, running, alice, _ in
                try await alice.say("/fetch", to: "fetcher")
                try await running.logs.line(containing: "localhost is at ")
                #expect(running.logs.contains("loopback address, which http actions may not reach"))
                #expect(endpoint.received.isEmpty)
            }
        }

        @Test func valuesAreEncodedSoASenderCannotChangeThePathOrTheQuery() async throws {
            try await withFetcher(url: "http://127.0.0.1:PORT/search?q={{args}}&page=1", allow: ["127.0.0.0/8"]) {
                endpoint, _, alice, _ in
                let start = try await alice.cursorNow()
                try await alice.say("/fetch cats&page=9#x/../../admin", to: "fetcher")
                _ = try await alice.messages(from: "fetcher", count: 1, after: start)
                let request = try #require(endpoint.received.first)
                #expect(request.path == "/search")
                #expect(request.query.map(\.name) == ["q", "page"])
                #expect(request.query("q") == "cats&page=9#x/../../admin")
                #expect(request.query("page") == "1")
            }
        }

        @Test func aValueOfDotOrDotDotCannotClimbThePath() async throws {
            try await withFetcher(url: "http://127.0.0.1:PORT/api/users/{{argv.1}}/profile", allow: ["127.0.0.1"]) {
                endpoint, running, alice, _ in
                for value in ["..", "."] {
                    try await alice.say("/fetch \(value)", to: "fetcher")
                    try await running.logs.line(containing: "the URL's path would hold the segment '\(value)'")
                }
                #expect(endpoint.received.isEmpty, "\(endpoint.received.map(\.path))")
                let start = try await alice.cursorNow()
                try await alice.say("/fetch %2e%2e", to: "fetcher")
                _ = try await alice.messages(from: "fetcher", count: 1, after: start)
                try await alice.say("/fetch bob", to: "fetcher")
                _ = try await alice.messages(from: "fetcher", count: 2, after: start)
                let paths = endpoint.received.map(\.path)
                #expect(paths.count == 2)
                #expect(paths.last == "/api/users/bob/profile")
                #expect(paths.allSatisfy { $0.hasPrefix("/api/users/") && $0.hasSuffix("/profile") }, "\(paths)")
            }
        }

        /// A runner process started with `http_proxy` in its environment: its `http`
        /// actions connect directly (and so meet the address filter), never through it.
        @Test func theEnvironmentsProxyIsNotUsedSoItCannotReachPastTheAddressFilter() async throws {
            let binary = try #require(switchboardExecutable, "build the switchboard executable first (swift build)")
            try await withEndpoint({ _, _ in Response(status: 200, body: Data("via the proxy".utf8)) }) { proxy in
                try await withBotsFolder { server, fixture, _ in
                    try await server.createAccount("fetcher", password: "fetcher-password", bot: true)
                    try fixture.write(Self.fetchBot("http://10.255.255.1/admin"), as: "fetcher.yaml")
                    let config = try fixture.processConfig(server: server.baseURL, extra: """
                          http: { allow: ["127.0.0.1"] }
                        """)
                    var environment = ProcessInfo.processInfo.environment
                    environment["http_proxy"] = "http://127.0.0.1:\(proxy.port)"
                    environment["https_proxy"] = "http://127.0.0.1:\(proxy.port)"
                    environment["no_proxy"] = "127.0.0.1,localhost"
                    let runner = try SpawnedProcess(binary, ["run", "--config", config], environment: environment)
                    try await ensuring({
                        let (alice, _) = try await server.client.register("alice")
                        try await server.awaitParkedPolls(1)
                        try await alice.say("/fetch", to: "fetcher")
                        try await eventually("the request refused at the address filter", hangGuard: .seconds(60)) {
                            runner.errors.contains("10.255.255.1 is at 10.255.255.1, a private address")
                        }
                        #expect(proxy.received.isEmpty, "the proxy was asked: \(proxy.received.map(\.path))")
                        #expect(try await runner.stop(SIGTERM) == 0, "\(runner.errors)")
                    }) {
                        if runner.exitStatus == nil { _ = try? await runner.stop(SIGKILL) }
                    }
                }
            }
        }

        @Test func aRedirectIsNotFollowed() async throws {
            try await withFetcher(url: "http://127.0.0.1:PORT/moved", allow: ["127.0.0.1"], answer: { _, _ in
                Response(status: 302, headers: ["Location": "http://169.254.169.254/latest/meta-data/"])
            }) { endpoint, running, alice, _ in
                try await alice.say("/fetch", to: "fetcher")
                try await running.logs.line(containing: "HTTP 302 from GET http://127.0.0.1:\(endpoint.port)/moved, expected 2xx")
                #expect(endpoint.received.count == 1)
            }
        }

        @Test func aResponseOverOneMebibyteIsCutOff() async throws {
            try await withFetcher(url: "http://127.0.0.1:PORT/big", allow: ["127.0.0.1"], answer: { _, _ in
                Response(status: 200, body: Data(count: (1 << 20) + 1))
            }) { _, running, alice, _ in
                try await alice.say("/fetch", to: "fetcher")
                try await running.logs.line(containing: "larger than the limit of 1048576 bytes")
            }
        }

        @Test func aSlowEndpointHoldsUpOnlyItsOwnConversation() async throws {
            try await withFetcher(url: "http://127.0.0.1:PORT/slow", allow: ["127.0.0.1"], answer: { _, gate in
                await gate.wait()
                return Response(status: 200, body: Data("late".utf8))
            }) { endpoint, _, alice, server in
                let (bob, _) = try await server.client.register("bob")
                let aliceStart = try await alice.cursorNow()
                try await alice.say("/fetch", to: "fetcher")
                try await alice.say("and then?", to: "fetcher")
                try await eventually("the endpoint has the request") { !endpoint.received.isEmpty }
                // Bob's conversation goes on while alice's waits for the endpoint.
                let bobStart = try await bob.cursorNow()
                try await bob.say("hi", to: "fetcher")
                #expect(try await bob.messages(from: "fetcher", count: 1, after: bobStart) == ["echo: hi"])
                #expect(try await alice.history(with: "fetcher").filter { $0.sender == "fetcher" }.isEmpty)
                endpoint.gate.open()
                // Alice's events are handled in order once the endpoint answers.
                #expect(try await alice.messages(from: "fetcher", count: 2, after: aliceStart) == ["200 late", "echo: and then?"])
            }
        }
    }
}

/// Which addresses count as private, loopback or link-local.
@Suite struct HTTPAllowListTests {
    func attempt(_ address: String, host: String = "example.com") -> CurlTransport.ConnectAttempt {
        CurlTransport.ConnectAttempt(host: host, address: HTTPAllowList.bytes(address) ?? [], port: 80)
    }

    @Test(arguments: [
        ("127.0.0.1", "loopback"), ("10.1.2.3", "private"), ("172.20.0.1", "private"), ("192.168.1.1", "private"),
        ("169.254.169.254", "link-local"), ("100.64.0.1", "shared (carrier NAT)"), ("0.0.0.0", "unspecified"),
        ("::1", "loopback"), ("fe80::1", "link-local"), ("fd00::1", "private"), ("::ffff:127.0.0.1", "loopback"),
        ("64:ff9b::a9fe:a9fe", "link-local"), ("224.0.0.1", "multicast"),
    ])
    func restrictedAddressesAreRefused(_ address: String, _ kind: String) throws {
        let refusal = try #require(HTTPAllowList().refusal(attempt(address)))
        #expect(refusal.contains("a \(kind) address"))
    }

    @Test(arguments: ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "172.32.0.1", "11.0.0.1"])
    func publicAddressesAreAllowed(_ address: String) {
        #expect(HTTPAllowList().refusal(attempt(address)) == nil)
    }

    @Test func theAllowListTakesAddressesNetworksAndHostNames() throws {
        let list = try HTTPAllowList(["10.0.0.0/8", "192.168.1.5", "Tickets.Internal", "fd00::/8"])
        #expect(list.refusal(attempt("10.200.3.4")) == nil)
        #expect(list.refusal(attempt("192.168.1.5")) == nil)
        #expect(list.refusal(attempt("192.168.1.6")) != nil)
        #expect(list.refusal(attempt("172.16.0.9", host: "tickets.internal")) == nil)
        #expect(list.refusal(attempt("fd12::1")) == nil)
        #expect(list.refusal(attempt("169.254.169.254")) != nil)
        #expect(throws: RunnerError.self) { try HTTPAllowList(["10.0.0.0/99"]) }
        #expect(throws: RunnerError.self) { try HTTPAllowList(["not a host!"]) }
    }
}

/// `check` refuses an `http` URL whose host a message could choose, and a timeout past
/// the runner's cap.
@Suite struct HTTPSpecCheckTests {
    @Test(arguments: ["https://{{message.text}}/hook", "https://tickets.{{sender.username}}.example/x",
                      "http://{{message.text}}:8080/"])
    func aTemplatedHostIsRefusedAtItsPosition(_ url: String) {
        let errors = Bots.errors("""
            bot: b
            account: { username: b, password: secret-password }
            rules:
              - { name: r, do: [ { http: { url: "\(url)" } } ] }
            """)
        #expect(errors.count == 1, "\(errors)")
        #expect(errors.first?.hasPrefix("bot.yaml:4:38: the host of an http url cannot be a template") == true,
                "\(errors)")
    }

    @Test func aTemplateInThePathIsFine() {
        #expect(Bots.errors("""
            bot: b
            account: { username: b, password: secret-password }
            rules:
              - { name: r, do: [ { http: { url: "https://tickets.example/{{message.text}}?from={{sender.username}}" } } ] }
            """).isEmpty)
    }

    @Test(arguments: ["31s", "5m", "0s"])
    func aTimeoutPastThirtySecondsOrOfNothingIsRefused(_ timeout: String) {
        let errors = Bots.errors("""
            bot: b
            account: { username: b, password: secret-password }
            rules:
              - { name: r, do: [ { http: { url: "https://tickets.example/x", timeout: \(timeout) } } ] }
            """)
        #expect(errors.count == 1, "\(errors)")
        #expect(errors.first?.contains("an http timeout must be more than 0 and at most 30s") == true, "\(errors)")
    }
}
