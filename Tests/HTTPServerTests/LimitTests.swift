import Foundation
import Synchronization
import HTTPServer
import Testing
import TestSupport

@Suite struct LimitTests {
    static let echo = TestResponder { request in .text("got \(request.body.count)") }

    @Test func declaredBodyOverTheLimitGets413WithoutTheBodyBeingSent() async throws {
        try await withHTTPServer(testConfiguration(maxBodyBytes: 1024), responder: Self.echo) { server in
            let client = try RawHTTPClient(port: server.port)
            // Only the head: the answer must come without the server reading any body.
            try client.send("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 10000000\r\n\r\n")
            let response = try await client.response()
            #expect(response.status == 413)
            #expect(response.header("Content-Type") == "application/json")
            #expect(response.text.contains("too large"))
            #expect(server.stats.rejectedBodyTooLarge == 1)
            #expect(server.stats.requestsTotal == 0)
        }
    }

    @Test func expectContinueIsAnsweredWithContinueOnlyWithinTheLimit() async throws {
        try await withHTTPServer(testConfiguration(maxBodyBytes: 1024), responder: Self.echo) { server in
            let within = try RawHTTPClient(port: server.port)
            try within.send("POST / HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\n"
                            + "Content-Length: 5\r\n\r\n")
            #expect(try await within.response().status == 100)
            try within.send("12345")
            #expect(try await within.response().text == "got 5")

            let over = try RawHTTPClient(port: server.port)
            try over.send("POST / HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\n"
                          + "Content-Length: 2048\r\n\r\n")
            #expect(try await over.response().status == 413)
        }
    }

    @Test func chunkedBodyGrowingPastTheLimitGets413() async throws {
        try await withHTTPServer(testConfiguration(maxBodyBytes: 1024), responder: Self.echo) { server in
            let client = try RawHTTPClient(port: server.port)
            let chunk = String(repeating: "x", count: 600)
            try client.send("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
                            + "258\r\n\(chunk)\r\n258\r\n\(chunk)\r\n0\r\n\r\n")
            let response = try await client.response()
            #expect(response.status == 413)
            #expect(response.header("Content-Type") == "application/json")
            #expect(server.stats.rejectedBodyTooLarge == 1)
            #expect(server.stats.requestsTotal == 0)
        }
    }

    @Test func chunkedBodyJustAtTheLimitIsAccepted() async throws {
        try await withHTTPServer(testConfiguration(maxBodyBytes: 1200), responder: Self.echo) { server in
            let client = try RawHTTPClient(port: server.port)
            let chunk = String(repeating: "x", count: 600)
            try client.send("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
                            + "258\r\n\(chunk)\r\n258\r\n\(chunk)\r\n0\r\n\r\n")
            #expect(try await client.response().text == "got 1200")
        }
    }

    @Test func perRouteBodyLimitOverridesTheDefault() async throws {
        var responder = Self.echo
        responder.limits = { head in head.path == "/small" ? 10 : nil }
        try await withHTTPServer(testConfiguration(maxBodyBytes: 100), responder: responder) { server in
            let body = String(repeating: "b", count: 20)
            let small = try RawHTTPClient(port: server.port)
            try small.send("POST /small HTTP/1.1\r\nHost: t\r\nContent-Length: 20\r\n\r\n\(body)")
            #expect(try await small.response().status == 413)

            let large = try RawHTTPClient(port: server.port)
            try large.send("POST /large HTTP/1.1\r\nHost: t\r\nContent-Length: 20\r\n\r\n\(body)")
            #expect(try await large.response().text == "got 20")

            let tooLarge = try RawHTTPClient(port: server.port)
            try tooLarge.send("POST /large HTTP/1.1\r\nHost: t\r\nContent-Length: 101\r\n\r\n")
            #expect(try await tooLarge.response().status == 413)
        }
    }

    @Test func theDefaultConnectionMemoryTakesHeaderBlocksOfSixKiBButNotTwelve() async throws {
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.errorLog = { _ in }
        try await withHTTPServer(configuration, responder: Self.echo) { server in
            let client = try RawHTTPClient(port: server.port)
            try client.send(get("/", headers: ["X-Pad: \(String(repeating: "p", count: 6 * 1024))"]))
            #expect(try await client.response().status == 200)
            let large = try RawHTTPClient(port: server.port)
            try large.send(get("/", headers: ["X-Pad: \(String(repeating: "p", count: 12 * 1024))"]))
            #expect(try await large.response().status == 431)
        }
    }

    @Test func hugeHeaderIsRefusedLoggedAndTheServerCarriesOn() async throws {
        let logged = Mutex<[String]>([])
        var configuration = testConfiguration()
        configuration.errorLog = { message in logged.withLock { $0.append(message) } }
        try await withHTTPServer(configuration, responder: Self.echo) { server in
            let client = try RawHTTPClient(port: server.port)
            let huge = String(repeating: "h", count: 64 * 1024)
            try client.send(get("/", headers: ["X-Huge: \(huge)"]))
            let response = try await client.response()
            #expect(response.status == 431)
            // The HTTP library's own message reached the log hook.
            #expect(logged.withLock { $0 }.contains { $0.contains("431") })

            let next = try RawHTTPClient(port: server.port)
            try next.send(get("/"))
            #expect(try await next.response().status == 200)
        }
    }

    @Test func malformedRequestIsRefusedAndTheServerCarriesOn() async throws {
        try await withHTTPServer(responder: Self.echo) { server in
            for garbage in ["NONSENSE\r\n\r\n", "GET / HTTP/1.1\r\nNo colon here\r\n\r\n",
                            "POST / HTTP/1.1\r\nHost: t\r\nContent-Length: x\r\n\r\n"] {
                let client = try RawHTTPClient(port: server.port)
                try client.send(garbage)
                // Closed, after a 4xx answer or none at all; never handed to the responder.
                let reply = String(decoding: try await client.untilClosed(), as: UTF8.self)
                #expect(reply.isEmpty || reply.hasPrefix("HTTP/1.1 4"), "\(garbage.debugDescription)")
            }
            #expect(server.stats.requestsTotal == 0)
            let next = try RawHTTPClient(port: server.port)
            try next.send(get("/"))
            #expect(try await next.response().status == 200)
        }
    }

    @Test func connectionWithLateHeadersIsClosed() async throws {
        try await withHTTPServer(testConfiguration(headerTimeout: 1), responder: Self.echo) { server in
            let client = try RawHTTPClient(port: server.port)
            try client.send("GET / HT")
            // The server's reaper must close it (idleTimeout is 300 s, the hang guard 30 s).
            let received = try await client.untilClosed()
            #expect(received.isEmpty)
            #expect(server.stats.headerTimeouts == 1)
        }
    }

    @Test func idleKeepAliveConnectionIsClosedAfterTheHeaderTimeout() async throws {
        try await withHTTPServer(testConfiguration(headerTimeout: 1), responder: Self.echo) { server in
            let client = try RawHTTPClient(port: server.port)
            try client.send(get("/"))
            #expect(try await client.response().status == 200)
            // No next request: its headers are overdue one second after the response.
            _ = try await client.untilClosed()
            #expect(server.stats.headerTimeouts == 1)
        }
    }
}
