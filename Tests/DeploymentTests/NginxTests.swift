import Foundation
import HTTPServer
import IMProtocol
import IMServer
import TestSupport
import Testing

/// `examples/nginx.conf` in front of real server nodes: what a client does through it
/// works, polls park and are answered through it, the nodes see the client's address
/// (not nginx's, not one the client made up), and bodies are limited as the nodes limit
/// them, with nginx's own errors in the API's envelope.
///
/// The node list is a parameter: one in-process node on SQLite, or two in-process nodes
/// on one PostgreSQL database (several nodes share a database only with the PostgreSQL
/// store), which nginx takes turns sending each request to.
@Suite(.serialized, .enabled(
    if: FileManager.default.isExecutableFile(atPath: NginxFront.binary),
    "nginx is missing: `make test` installs Debian's nginx"))
struct NginxTests {
    /// Runs `body` with `count` nodes that trust nginx's address, and nginx in front of them.
    static func withFront(nodes count: Int, _ body: ([TestServer], TestClient) async throws -> Void) async throws {
        try await withNodes(count, store: count > 1 ? .postgres : .sqlite, { config in
            config.http.trustedProxies = [IPAddressRange(NginxFront.proxyAddress)].compactMap { $0 }
        }) { nodes in
            let front = try await NginxFront.start(nodes: nodes.map { "127.0.0.1:\($0.app.port)" })
            try await ensuring({
                try await body(nodes, TestClient(baseURL: front.baseURL))
                // What the tests provoke: bodies above 16 KiB (avatars) going through a
                // temporary file, and bodies over the limit.
                let provoked = ["a client request body is buffered to a temporary file", "client intended to send too large body"]
                let complaints = front.process.errors.split(separator: "\n")
                    .filter { line in !provoked.contains { line.contains($0) } }
                #expect(complaints.isEmpty, "nginx complained: \(complaints)")
            }) {
                await front.stop()
            }
        }
    }

    @Test(arguments: [1, 2])
    func registerSendAndAParkedPollAnsweredThroughNginx(nodes count: Int) async throws {
        try await Self.withFront(nodes: count) { nodes, client in
            let (alice, _) = try await client.register("alice")
            let (bob, _) = try await client.register("bob")
            let cursor = try await bob.get("/v1/events").decode(EventBatch.self).cursor

            async let polled = bob.get("/v1/events?timeout=30&cursor=\(cursor)")
            try await eventually("bob's poll parked on a node") { nodes.map(\.parkedPolls).reduce(0, +) == 1 }
            let sent = try await alice.send("POST", "/v1/conversations/user:bob/messages", json: SendMessageRequest(text: "through the proxy"))
            #expect(sent.status == 201, "\(sent.text)")

            let answer = try await polled
            #expect(answer.status == 200, "\(answer.text)")
            #expect(try answer.decode(EventBatch.self).events.compactMap(\.message?.text) == ["through the proxy"])
            // With two nodes, nginx took turns: each served some of these requests, so the
            // message and the poll it answered met across nodes.
            #expect(nodes.allSatisfy { node in node.logs.lines.contains { $0.message.hasPrefix("POST /v1/") } })
        }
    }

    @Test(arguments: [1, 2])
    func theNodesSeeTheClientsAddressNotTheProxysNorAForgedOne(nodes count: Int) async throws {
        try await Self.withFront(nodes: count) { nodes, client in
            let forged = try await client.send(
                "POST", "/v1/register", body: try WireJSON.encoder().encode(RegisterRequest(username: "mallory", password: "correct horse battery")),
                headers: [("X-Forwarded-For", "198.51.100.7")])
            #expect(forged.status == 201, "\(forged.text)")

            // The node's request line: its peer is the client nginx served (127.0.0.1),
            // not nginx (127.0.0.3), nor the address the client put in the header.
            let lines = nodes.flatMap { $0.logs.lines }.filter { $0.message == "POST /v1/register 201" }
            #expect(lines.count == 1)
            #expect(lines.first?.metadata.first { $0.0 == "peer" }?.1 == "127.0.0.1")
        }
    }

    @Test(arguments: [1])
    func bodiesAreLimitedAsTheNodesLimitThemWithTheErrorEnvelope(nodes count: Int) async throws {
        try await Self.withFront(nodes: count) { _, client in
            let (alice, _) = try await client.register("alice")
            let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

            let avatar = try await alice.send(
                "PUT", "/v1/me/avatar", body: Data(png + [UInt8](repeating: 0, count: 1_500_000)), headers: [("Content-Type", "image/png")])
            #expect(avatar.status == 200, "an avatar of 1.5 MiB reaches the node: \(avatar.status) \(avatar.text)")

            for (path, size) in [("/v1/me/avatar", 3 << 20), ("/v1/conversations/user:alice/messages", 1_100_000)] {
                let tooLarge = try await alice.send(
                    path.hasSuffix("avatar") ? "PUT" : "POST", path, body: Data(png + [UInt8](repeating: 0x20, count: size)),
                    headers: [("Content-Type", path.hasSuffix("avatar") ? "image/png" : "application/json")])
                #expect(tooLarge.status == 413, "\(path): \(tooLarge.text)")
                #expect(tooLarge.error?.code == .payloadTooLarge, "\(path): \(tooLarge.text)")
            }

            let metrics = try await client.get("/metrics")
            #expect(metrics.status == 404)
            #expect(metrics.error?.code == .notFound)
        }
    }

    /// A node that does not answer is nginx's 502, which the example turns into the
    /// envelope's 503 with a Retry-After.
    @Test func noNodeAnsweringIsA503InTheEnvelope() async throws {
        let closed = try LoopbackSocket()
        defer { close(closed.descriptor) }
        let front = try await NginxFront.start(nodes: ["127.0.0.1:\(closed.port)"])
        try await ensuring({
            let answer = try await TestClient(baseURL: front.baseURL).get("/healthz")
            #expect(answer.status == 503)
            #expect(answer.error?.code == .unavailable)
            #expect(answer.header("Retry-After") == "5")
        }) {
            await front.stop()
        }
    }

    /// The example as shipped, TLS and all (with a certificate made for the test in place
    /// of the real one), is one nginx takes: `nginx -t`.
    @Test func theShippedExamplePassesNginxsOwnCheck() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nginx-t-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let certificate = try SpawnedProcess("/usr/bin/openssl", [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=chat.example.com",
            "-keyout", folder + "/key.pem", "-out", folder + "/cert.pem",
        ])
        #expect(try await withHangGuard("openssl req") { await certificate.waitForExit() } == 0)
        let site = try String(contentsOf: NginxFront.example, encoding: .utf8)
            .replacingOccurrences(of: "/etc/letsencrypt/live/chat.example.com/fullchain.pem", with: folder + "/cert.pem")
            .replacingOccurrences(of: "/etc/letsencrypt/live/chat.example.com/privkey.pem", with: folder + "/key.pem")
        try site.write(toFile: folder + "/switchboard.conf", atomically: true, encoding: .utf8)
        try NginxFront.main(folder: folder, proxyBind: false).write(toFile: folder + "/nginx.conf", atomically: true, encoding: .utf8)

        let check = try SpawnedProcess(NginxFront.binary, ["-t", "-p", folder + "/", "-c", folder + "/nginx.conf", "-e", "stderr"])
        let status = try await withHangGuard("nginx -t") { await check.waitForExit() }
        let output = try await check.allErrors()
        #expect(status == 0, "nginx -t: \(output)")
        // Nothing but its two lines of success: no warning either.
        let complaints = output.split(separator: "\n").filter { !$0.hasSuffix("syntax is ok") && !$0.hasSuffix("test is successful") }
        #expect(complaints.isEmpty, "nginx -t: \(output)")
    }

    /// The example waits for a poll longer than the longest a node parks one.
    @Test func theEventFeedsReadTimeoutIsLongerThanTheLongestPoll() throws {
        let text = try String(contentsOf: NginxFront.example, encoding: .utf8)
        let location = try #require(text.range(of: "location = /v1/events {"))
        let block = text[location.upperBound...].prefix { $0 != "}" }
        let timeout = try #require(
            block.split(separator: "\n").first { $0.contains("proxy_read_timeout") }?
                .split(separator: " ").last?.dropLast(2))
        #expect(try #require(Int(timeout)) > ServerConfiguration().maxPollTimeout + 5)
        #expect(block.contains("proxy_buffering off;"))
    }
}
