import Foundation
import Synchronization
import Testing
@testable import IMClient

/// The libcurl transport against a real (test) HTTP server on 127.0.0.1.
@Suite("CurlTransport exchanges", .timeLimit(.minutes(1)))
struct CurlTransportTests {
    @Test func postSendsHeadersAndBinaryBodyAndReturnsTheResponse() async throws {
        let server = try TestHTTPServer { request in
            .respond(TestHTTPServer.Reply(
                status: 201,
                headers: [("X-Echo-Method", request.method), ("Content-Type", "application/octet-stream")],
                body: request.body))
        }
        defer { server.stop() }
        let transport = CurlTransport()
        let payload = Data((0...255).map { UInt8($0) } + [0, 0, 13, 10, 0])

        let response = try await transport.send(TransportRequest(
            method: "POST", url: server.url("/v1/things?x=1"),
            headers: [("Content-Type", "application/octet-stream"), ("X-Trace", "abc 123")],
            body: payload))

        #expect(response.status == 201)
        #expect(response.body == payload)
        #expect(response.header("x-echo-method") == "POST")
        #expect(response.header("CONTENT-TYPE") == "application/octet-stream")
        let seen = try #require(server.requests.first)
        #expect(seen.method == "POST")
        #expect(seen.path == "/v1/things?x=1")
        #expect(seen.body == payload)
        #expect(seen.header("X-Trace") == "abc 123")
        #expect(seen.header("Content-Length") == "\(payload.count)")
        #expect(seen.header("User-Agent") == CurlTransport.Configuration.defaultUserAgent)
        // Only the caller's headers: none of libcurl's defaults.
        #expect(seen.header("Expect") == nil)
        #expect(seen.header("Accept") == nil)
    }

    @Test func getSendsNoBodyAndReadsHeadersCaseInsensitively() async throws {
        let server = try TestHTTPServer { _ in
            .respond(TestHTTPServer.Reply(status: 200, headers: [("X-Feed-Cursor", "c42")], body: Data("{}".utf8)))
        }
        defer { server.stop() }
        let transport = CurlTransport()

        let response = try await transport.send(TransportRequest(
            url: server.url("/v1/events"), headers: [("Authorization", "Bearer t0k"), ("User-Agent", "bot/1")]))

        #expect(response.status == 200)
        #expect(response.header("x-feed-cursor") == "c42")
        #expect(response.header("missing") == nil)
        #expect(String(decoding: response.body, as: UTF8.self) == "{}")
        let seen = try #require(server.requests.first)
        #expect(seen.method == "GET")
        #expect(seen.header("Authorization") == "Bearer t0k")
        #expect(seen.header("User-Agent") == "bot/1")
        #expect(seen.header("Content-Length") == nil)
        #expect(seen.body.isEmpty)
    }

    @Test func otherMethodsGoOutAsGivenAndBodylessWritesSendZeroLength() async throws {
        let server = try TestHTTPServer { _ in .respond(.text("ok")) }
        defer { server.stop() }
        let transport = CurlTransport()

        _ = try await transport.send(TransportRequest(method: "PUT", url: server.url("/a"), body: Data("x".utf8)))
        _ = try await transport.send(TransportRequest(method: "PATCH", url: server.url("/b")))
        _ = try await transport.send(TransportRequest(method: "DELETE", url: server.url("/c")))
        let head = try await transport.send(TransportRequest(method: "HEAD", url: server.url("/d")))

        let seen = server.requests
        #expect(seen.map(\.method) == ["PUT", "PATCH", "DELETE", "HEAD"])
        #expect(seen[0].body == Data("x".utf8))
        #expect(seen[0].header("Content-Type") == nil)  // not libcurl's form-encoding default
        #expect(seen[1].header("Content-Length") == "0")
        #expect(seen[2].header("Content-Length") == nil)
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
    }

    /// A body over 1 MiB asks first (`Expect: 100-continue`), so that a server refusing it
    /// answers before it is sent; this server says go ahead at once and gets all of it.
    @Test func aLargeBodyAsksTheServerFirstAndArrivesWhole() async throws {
        let server = try TestHTTPServer { request in .respond(.text("\(request.body.count)")) }
        defer { server.stop() }
        let payload = Data(repeating: 0xAB, count: 3 << 20)

        let response = try await CurlTransport().send(TransportRequest(
            method: "PUT", url: server.url("/v1/me/avatar"), headers: [("Content-Type", "image/png")], body: payload))

        #expect(String(decoding: response.body, as: UTF8.self) == "\(payload.count)")
        let seen = try #require(server.requests.first)
        #expect(seen.header("Expect") == "100-continue")
        #expect(seen.body == payload)
    }

    @Test func logHookReceivesTheVerboseTrace() async throws {
        let server = try TestHTTPServer { _ in .respond(.text("ok")) }
        defer { server.stop() }
        let lines = LogLines()
        let transport = CurlTransport(configuration: .init(log: { lines.append($0) }))

        _ = try await transport.send(TransportRequest(url: server.url("/traced")))

        #expect(lines.all.contains("> GET /traced HTTP/1.1"))
        #expect(lines.all.contains("< HTTP/1.1 200 OK"))
    }

    @Test func sequentialRequestsReuseOneKeptAliveConnection() async throws {
        let server = try TestHTTPServer { _ in .respond(.text("ok")) }
        defer { server.stop() }
        let transport = CurlTransport()

        for _ in 0..<3 {
            let response = try await transport.send(TransportRequest(url: server.url("/ping")))
            #expect(response.status == 200)
        }

        #expect(server.requests.count == 3)
        #expect(server.acceptedConnections == 1)
    }

    @Test func rateLimitedAnswerIsAResponseWithRetryAfter() async throws {
        let server = try TestHTTPServer { _ in
            .respond(TestHTTPServer.Reply(status: 429, headers: [("Retry-After", "3")],
                                          body: Data(#"{"error":{"code":"RATE_LIMITED"}}"#.utf8)))
        }
        defer { server.stop() }

        let response = try await CurlTransport().send(TransportRequest(method: "POST", url: server.url("/v1/x")))

        #expect(response.status == 429)
        #expect(response.header("retry-after") == "3")
    }

    @Test func twoHundredParkedRequestsShareOneThreadAndAllGetAnswered() async throws {
        let count = 200
        let server = try TestHTTPServer { _ in .park(.text("woke")) }
        defer { server.stop() }
        let transport = CurlTransport()
        let threadsBefore = try Self.transportThreadCount()

        try await withThrowingTaskGroup(of: TransportResponse.self) { group in
            for index in 0..<count {
                group.addTask {
                    try await transport.send(TransportRequest(url: server.url("/v1/events?n=\(index)"),
                                                              timeout: .seconds(50)))
                }
            }
            #expect(await server.waitForParked(count))
            // All parked at once: one transport thread, not one per request.
            #expect(transport.threadsStarted == 1)
            // Threads libcurl would start per request (a resolver) are made by the loop thread
            // and carry its name; counting only those keeps other suites' threads out.
            #expect(try Self.transportThreadCount() < threadsBefore + count / 2)
            #expect(server.acceptedConnections == count)

            server.releaseParked()
            var answered = 0
            for try await response in group {
                #expect(response.status == 200)
                #expect(response.body == Data("woke".utf8))
                answered += 1
            }
            #expect(answered == count)
        }
    }

    @Test func connectionsOfFinishedLongPollsAreReusedByTheNextRound() async throws {
        let count = 50
        let server = try TestHTTPServer { _ in .park(.text("woke")) }
        defer { server.stop() }
        let transport = CurlTransport()

        for round in 1...2 {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<count {
                    group.addTask { try await transport.send(TransportRequest(url: server.url("/v1/events"))).status }
                }
                #expect(await server.waitForParked(count * round))
                server.releaseParked()
                for try await status in group { #expect(status == 200) }
            }
        }

        #expect(server.acceptedConnections == count)
    }

    /// Threads of this process named like the transport's loop thread (a thread's name is
    /// inherited by the threads it starts).
    static func transportThreadCount() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count { task in
            let name = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)
            return name?.hasPrefix("sb-curl") == true
        }
    }
}

/// Collects log lines from the transport's thread.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}
