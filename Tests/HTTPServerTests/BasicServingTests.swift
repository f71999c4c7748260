import Foundation
import Synchronization
import HTTPServer
import Testing
import TestSupport

@Suite struct BasicServingTests {
    @Test func simpleGetIsAnswered() async throws {
        let responder = TestResponder { request in .text("hello \(request.path)") }
        try await withHTTPServer(responder: responder) { server in
            #expect(server.port > 0)
            let client = try RawHTTPClient(port: server.port)
            try client.send(get("/world"))
            let response = try await client.response()
            #expect(response.status == 200)
            #expect(response.text == "hello /world")
            #expect(response.header("Content-Length") == "12")
            #expect(response.header("Content-Type") == "text/plain")
            #expect(server.stats.requestsTotal == 1)
        }
    }

    @Test func twoRequestsReuseOneKeepAliveConnection() async throws {
        let responder = TestResponder { request in .text("n=\(request.query("n") ?? "")") }
        try await withHTTPServer(responder: responder) { server in
            let client = try RawHTTPClient(port: server.port)
            try client.send(get("/?n=1"))
            let first = try await client.response()
            #expect(first.text == "n=1")
            #expect(first.header("Connection")?.lowercased() != "close")
            // The same socket carries the second exchange.
            try client.send(get("/?n=2"))
            let second = try await client.response()
            #expect(second.text == "n=2")
            #expect(server.stats.openConnections == 1)
            #expect(server.stats.requestsTotal == 2)
        }
    }

    @Test func queryArgumentsAndHeadersArriveInOrderAndDecoded() async throws {
        let seen = Mutex<Request?>(nil)
        let responder = TestResponder { request in
            seen.withLock { $0 = request }
            return .text("ok")
        }
        try await withHTTPServer(responder: responder) { server in
            let client = try RawHTTPClient(port: server.port)
            try client.send(get(
                "/a%20b/c?x=1&y=two%20words&x=3&flag",
                headers: ["X-First: one", "x-second:  two  ", "Authorization: Bearer t0k"]))
            #expect(try await client.response().status == 200)
            let request = try #require(seen.withLock { $0 })
            #expect(request.method == .get)
            #expect(request.path == "/a b/c")
            #expect(request.query.map(\.name) == ["x", "y", "x", "flag"])
            #expect(request.query.map(\.value) == ["1", "two words", "3", ""])
            #expect(request.query("x") == "1")
            #expect(request.headers.map(\.name) == ["Host", "X-First", "x-second", "Authorization"])
            #expect(request.headers["x-first"] == "one")
            #expect(request.headers["X-Second"] == "two")
            #expect(request.headers["authorization"] == "Bearer t0k")
            #expect(request.remoteAddress == "127.0.0.1")
        }
    }

    @Test func postBodyArrivesIntactIncludingBinaryBytes() async throws {
        let responder = TestResponder { request in
            Response(status: 200, headers: ["Content-Type": "application/octet-stream"],
                     body: request.body)
        }
        try await withHTTPServer(responder: responder) { server in
            let body = (0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }
            let client = try RawHTTPClient(port: server.port)
            try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: \(body.count)\r\n\r\n")
            try client.send(body)
            let response = try await client.response()
            #expect(response.status == 200)
            #expect(response.body == body)
        }
    }

    @Test func chunkedBodyWithinTheLimitIsJoined() async throws {
        let responder = TestResponder { request in Response(status: 200, body: request.body) }
        try await withHTTPServer(responder: responder) { server in
            let client = try RawHTTPClient(port: server.port)
            try client.send("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
                            + "5\r\nhello\r\n1\r\n \r\n5\r\nworld\r\n0\r\n\r\n")
            let response = try await client.response()
            #expect(response.text == "hello world")
        }
    }

    @Test func headResponseHasLengthButNoBody() async throws {
        let responder = TestResponder { request in
            .text(request.method == .head ? "twelve bytes" : "GET body")
        }
        try await withHTTPServer(responder: responder) { server in
            let client = try RawHTTPClient(port: server.port)
            try client.send("HEAD / HTTP/1.1\r\nHost: t\r\n\r\n")
            let head = try await client.response(head: true)
            #expect(head.status == 200)
            #expect(head.header("Content-Length") == "12")
            // Had a body been sent, this response would not parse.
            try client.send(get("/"))
            let next = try await client.response()
            #expect(next.text == "GET body")
        }
    }

    @Test func responseStatusAndHeadersAreSentAsGiven() async throws {
        let responder = TestResponder { _ in
            Response(status: 429, headers: ["Retry-After": "7", "X-Trace": "abc"],
                     body: Data("slow down".utf8))
        }
        try await withHTTPServer(responder: responder) { server in
            let client = try RawHTTPClient(port: server.port)
            try client.send(get("/"))
            let response = try await client.response()
            #expect(response.status == 429)
            #expect(response.header("Retry-After") == "7")
            #expect(response.header("X-Trace") == "abc")
            #expect(response.text == "slow down")
        }
    }

    @Test func handlersThatWaitElsewhereAreAnsweredOnEveryConnection() async throws {
        // Each handler leaves MHD's thread (an actor hop), so its connection is suspended
        // and resumed; some finish while the connection is being suspended.
        actor Counter {
            var value = 0
            func next() -> Int { value += 1; return value }
        }
        let counter = Counter()
        let responder = TestResponder { request in
            let number = await counter.next()
            return .text("\(request.query("i") ?? "")/\(number > 0)")
        }
        try await withHTTPServer(responder: responder) { server in
            let clients = try (0..<20).map { _ in try RawHTTPClient(port: server.port) }
            let texts = try await onThread {
                var texts: [String] = []
                for round in 0..<50 {
                    for (index, client) in clients.enumerated() {
                        try client.send(get("/?i=\(round)-\(index)"))
                    }
                    for client in clients {
                        texts.append(try RawHTTPClient.blockingResponse(client).text)
                    }
                }
                return texts
            }
            #expect(texts.count == 1_000)
            #expect(texts.first == "0-0/true")
            #expect(texts.last == "49-19/true")
            #expect(server.stats.requestsTotal == 1_000)
            #expect(server.stats.openConnections == 20)
        }
    }

    @Test func responseHeaderWithALineBreakIsDroppedNotInjected() async throws {
        let logged = Mutex<[String]>([])
        var configuration = testConfiguration()
        configuration.errorLog = { message in logged.withLock { $0.append(message) } }
        let responder = TestResponder { _ in
            Response(status: 200, headers: ["X-Bad": "a\r\nInjected: yes", "X-Good": "b"])
        }
        try await withHTTPServer(configuration, responder: responder) { server in
            let client = try RawHTTPClient(port: server.port)
            try client.send(get("/"))
            let response = try await client.response()
            #expect(response.status == 200)
            #expect(response.header("Injected") == nil)
            #expect(response.header("X-Bad") == nil)
            #expect(response.header("X-Good") == "b")
            #expect(logged.withLock { $0 }.contains { $0.contains("X-Bad") })
        }
    }

    @Test func outOfRangeStatusIsSentAs500() async throws {
        let responder = TestResponder { _ in Response(status: 42) }
        try await withHTTPServer(responder: responder) { server in
            let client = try RawHTTPClient(port: server.port)
            try client.send(get("/"))
            #expect(try await client.response().status == 500)
        }
    }

    @Test func servesOnIPv6Loopback() async throws {
        var configuration = testConfiguration()
        configuration.host = "::1"
        let responder = TestResponder { request in .text(request.remoteAddress) }
        try await withHTTPServer(configuration, responder: responder) { server in
            let client = try RawHTTPClient(host: "::1", port: server.port)
            try client.send(get("/"))
            #expect(try await client.response().text == "::1")
        }
    }
}
