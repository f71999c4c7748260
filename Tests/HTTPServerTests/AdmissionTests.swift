import Foundation
import HTTPServer
import Synchronization
import Testing
import TestSupport

/// What is decided before a body is read (`BodyAdmission`), how bodies are held once they
/// are, and requests whose query alone would exhaust a connection's memory.
@Suite struct AdmissionTests {
    static let echo = TestResponder { request in .text("got \(request.body.count)") }

    /// A responder that lets in only requests carrying `X-Key: open sesame`.
    static var keyed: TestResponder {
        var responder = echo
        responder.admit = { head in
            head.headers["X-Key"] == "open sesame"
                ? .read(limit: nil) : .refuse(.text("no key", status: 401))
        }
        return responder
    }

    @Test func aRefusedRequestIsAnsweredWithoutWaitingForItsBody() async throws {
        try await withHTTPServer(responder: Self.keyed) { server in
            let client = try RawHTTPClient(port: server.port)
            // Only the head, declaring ten megabytes: the answer comes with none of it sent.
            try client.send("POST /private HTTP/1.1\r\nHost: t\r\nContent-Length: 10000000\r\n\r\n")
            let response = try await client.response()
            #expect(response.status == 401)
            #expect(response.header("Connection") == "close")
            _ = try await client.untilClosed()
            #expect(server.stats.refusedBeforeBody == 1)
            #expect(server.stats.requestsTotal == 0)

            let keyed = try RawHTTPClient(port: server.port)
            try keyed.send("POST /private HTTP/1.1\r\nHost: t\r\nX-Key: open sesame\r\nContent-Length: 5\r\n\r\n12345")
            #expect(try await keyed.response().text == "got 5")
        }
    }

    /// `.check` decides in a task while the connection waits with the body unread; the
    /// decision then reads the body or refuses it unread.
    @Test func aCheckedAdmissionReadsNothingUntilItIsDecided() async throws {
        let gate = Gate()
        let checks = Atomic<Int>(0)
        var responder = Self.echo
        responder.admit = { _ in .check }
        responder.check = { head in
            checks.add(1, ordering: .relaxed)
            _ = await gate.wait()
            return head.path == "/yes" ? .read(limit: 100) : .refuse(.text("checked and refused", status: 403))
        }
        try await withHTTPServer(responder: responder) { server in
            let yes = try RawHTTPClient(port: server.port)
            try yes.send("POST /yes HTTP/1.1\r\nHost: t\r\nContent-Length: 50\r\n\r\n" + String(repeating: "y", count: 50))
            let no = try RawHTTPClient(port: server.port)
            try no.send("POST /no HTTP/1.1\r\nHost: t\r\nContent-Length: 50\r\n\r\n" + String(repeating: "n", count: 50))
            try await eventually("both checks waiting") { checks.load(ordering: .relaxed) == 2 }
            #expect(server.stats.bufferedBodyBytes == 0)

            gate.open()
            #expect(try await yes.response().text == "got 50")
            let refused = try await no.response()
            #expect(refused.status == 403)
            #expect(refused.text == "checked and refused")
            #expect(server.stats.requestsTotal == 1)
        }
    }

    /// A check that never ends does not hold up `shutdown`: the connection waits in the
    /// request's phases, so `shutdown` takes it over, answers 503 and stops with nothing
    /// left suspended; the check's late decision goes nowhere.
    @Test func shutdownTakesOverACheckThatDoesNotEnd() async throws {
        let gate = Gate()
        let checks = EventLog<Bool>()
        var responder = Self.echo
        responder.admit = { _ in .check }
        responder.check = { _ in
            checks.record(true)
            _ = await gate.wait()
            return .read(limit: nil)
        }
        let (server, logged) = try startedLoggingServer(testConfiguration(shutdownGrace: 0), responder: responder)
        try await shutsDownAfter(server) {
            let client = try RawHTTPClient(port: server.port)
            try client.send("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\n12345")
            _ = await checks.next()

            await server.shutdown()
            let response = try await client.response()
            #expect(response.status == 503)
            #expect(server.stats.requestsTotal == 0)
            #expect(!logged.lines.contains { $0.contains("did not resume") }, "\(logged.lines)")
            gate.open()  // the late decision resumes nothing
        }
    }

    /// Checked admissions arriving as `shutdown` begins: each is answered (its check's
    /// answer, or 503) or closed, and `shutdown` ends with no connection left suspended
    /// (MHD aborts the process if it is stopped with one).
    @Test func checksArrivingAsShutdownBeginsLeaveNothingSuspended() async throws {
        var responder = Self.echo
        responder.admit = { _ in .check }
        responder.check = { _ in
            await Task.yield()
            return .read(limit: nil)
        }
        let (server, logged) = try startedLoggingServer(testConfiguration(shutdownGrace: 0), responder: responder)
        let port = server.port
        let sent = SentCount()
        try await shutsDownAfter(server) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        // New connections until the server stops taking them.
                        while let client = try? RawHTTPClient(port: port) {
                            guard (try? client.send("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\n12345")) != nil
                            else { return }
                            sent.value.add(1, ordering: .relaxed)
                            guard let response = try? await client.response() else { return }
                            if response.status == 503 { return }
                            #expect(response.text == "got 5")
                        }
                    }
                }
                try await eventually("requests flowing") { sent.value.load(ordering: .relaxed) >= 200 }
                await server.shutdown()
                try await group.waitForAll()
            }
        }
        #expect(!logged.lines.contains { $0.contains("did not resume") }, "\(logged.lines)")
    }

    /// A checked admission's limit holds: a larger declared body gets 413.
    @Test func aCheckedAdmissionsLimitHolds() async throws {
        var responder = Self.echo
        responder.admit = { _ in .check }
        responder.check = { _ in .read(limit: 10) }
        try await withHTTPServer(responder: responder) { server in
            let client = try RawHTTPClient(port: server.port)
            try client.send("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 11\r\n\r\n")
            #expect(try await client.response().status == 413)
        }
    }

    /// A declared length is not buffered ahead: 48 clients declaring 4 MiB each and sending
    /// one byte hold 48 bytes.
    @Test func aDeclaredLengthIsNotBufferedAhead() async throws {
        try await withHTTPServer(testConfiguration(maxBodyBytes: 4 << 20), responder: Self.echo) { server in
            var clients: [RawHTTPClient] = []
            for _ in 0..<48 {
                let client = try RawHTTPClient(port: server.port)
                try client.send("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: \(4 << 20)\r\n\r\nx")
                clients.append(client)
            }
            try await eventually("every first byte buffered") { server.stats.bufferedBodyBytes == 48 }
            for client in clients { client.close() }
            try await eventually("the bytes given back") { server.stats.bufferedBodyBytes == 0 }
        }
    }

    /// Past the bytes the server buffers for all requests together, a body is dropped as it
    /// comes and answered 503 with `Retry-After`; the bodies already held are answered.
    @Test func bodiesPastTheServersBufferAre503() async throws {
        var configuration = testConfiguration()
        configuration.maxBufferedBodyBytes = 64 * 1024
        try await withHTTPServer(configuration, responder: Self.echo) { server in
            let holding = try RawHTTPClient(port: server.port)
            try holding.send("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 61440\r\n\r\n" + String(repeating: "a", count: 51200))
            try await eventually("50 KiB held") { server.stats.bufferedBodyBytes == 51200 }

            let late = try RawHTTPClient(port: server.port)
            try late.send("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 20480\r\n\r\n" + String(repeating: "b", count: 20480))
            let refused = try await late.response()
            #expect(refused.status == 503)
            #expect(refused.header("Retry-After") == "1")
            #expect(server.stats.refusedBufferFull == 1)

            try holding.send(String(repeating: "a", count: 10240))
            #expect(try await holding.response().text == "got 61440")
            try await eventually("the bytes given back") { server.stats.bufferedBodyBytes == 0 }
        }
    }

    /// A query with more arguments than the limit is answered 414 at once, in the
    /// responder's format; the HTTP library alone would run out of connection memory and
    /// leave the client waiting until its connection timed out.
    @Test(arguments: [100, 200, 2000])
    func tooManyQueryArgumentsAre414AtOnce(count: Int) async throws {
        try await withHTTPServer(responder: Self.echo) { server in
            let query = Array(repeating: "a", count: count).joined(separator: "&")
            let client = try RawHTTPClient(port: server.port)
            try client.send(get("/?\(query)"))
            let response = try await client.response()
            #expect(response.status == 414)
            #expect(response.header("Content-Type") == "application/json")
            #expect(response.text.contains("too many query arguments (at most 64)"))
            #expect(server.stats.refusedQueryArguments == 1)

            let within = try RawHTTPClient(port: server.port)
            try within.send(get("/?" + (0..<64).map { "a\($0)=\($0)" }.joined(separator: "&")))
            #expect(try await within.response().status == 200)
        }
    }

    /// A request line longer than the connection's memory is answered 414 at once by the
    /// HTTP library itself (before any query is looked at), and the server carries on.
    @Test func aRequestLineLongerThanTheConnectionMemoryIs414AtOnce() async throws {
        try await withHTTPServer(responder: Self.echo) { server in
            let client = try RawHTTPClient(port: server.port)
            try client.send(get("/?" + (0..<3000).map { "a\($0)=\($0)" }.joined(separator: "&")))
            #expect(try await client.response().status == 414)
            let next = try RawHTTPClient(port: server.port)
            try next.send(get("/"))
            #expect(try await next.response().status == 200)
        }
    }
}

/// Requests a test's clients sent, counted from several tasks.
private final class SentCount: Sendable {
    let value = Atomic<Int>(0)
}
