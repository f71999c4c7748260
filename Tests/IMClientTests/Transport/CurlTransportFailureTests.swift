import Foundation
import TestSupport
import Testing
@testable import IMClient
#if canImport(Glibc)
import Glibc
#endif

/// How the libcurl transport fails: each failure has its code, its retry-safety and a message naming the server.
@Suite("CurlTransport failures", .timeLimit(.minutes(1)))
struct CurlTransportFailureTests {
    @Test func refusedConnectionIsCannotConnectAndSurelyNotSent() async throws {
        let refusing = try RefusingPort()
        defer { refusing.close() }

        let error = await #expect(throws: TransportError.self) {
            try await CurlTransport().send(TransportRequest(method: "POST", url: "http://127.0.0.1:\(refusing.port)/v1/x"))
        }

        #expect(error?.code == .cannotConnect)
        #expect(error?.requestNotSent == true)
        #expect(error?.message == "server not reachable at 127.0.0.1:\(refusing.port) (connection refused)")
        #expect(error?.curlCode == 7)
    }

    @Test func serverThatNeverAnswersTimesOut() async throws {
        let server = try TestHTTPServer { _ in .hold }
        defer { server.stop() }

        let error = await #expect(throws: TransportError.self) {
            try await CurlTransport().send(TransportRequest(url: server.url("/slow"), timeout: .milliseconds(200)))
        }

        #expect(error?.code == .timedOut)
        #expect(error?.requestNotSent == false)  // the request was written: the server may act on it
        #expect(error?.message.contains("127.0.0.1:\(server.port)") == true)
    }

    @Test func connectionClosedWithoutAnswerIsConnectionLost() async throws {
        let server = try TestHTTPServer { _ in .close }
        defer { server.stop() }

        let error = await #expect(throws: TransportError.self) {
            try await CurlTransport().send(TransportRequest(method: "POST", url: server.url("/v1/x"), body: Data("m".utf8)))
        }

        #expect(error?.code == .connectionLost)
        #expect(error?.requestNotSent == false)
        #expect(error?.message.contains("127.0.0.1:\(server.port)") == true)
    }

    @Test func responseCutOffMidBodyIsConnectionLost() async throws {
        let server = try TestHTTPServer { _ in .halfResponse(.text(String(repeating: "x", count: 1000))) }
        defer { server.stop() }

        let error = await #expect(throws: TransportError.self) {
            try await CurlTransport().send(TransportRequest(url: server.url("/v1/x")))
        }

        #expect(error?.code == .connectionLost)
        #expect(error?.requestNotSent == false)
    }

    @Test func bodyAnnouncedOverTheLimitIsTooLarge() async throws {
        let server = try TestHTTPServer { _ in .respond(.text(String(repeating: "x", count: 5000))) }
        defer { server.stop() }
        let transport = CurlTransport(configuration: .init(maxResponseBytes: 1024))

        let error = await #expect(throws: TransportError.self) {
            try await transport.send(TransportRequest(url: server.url("/big")))
        }

        #expect(error?.code == .tooLarge)
        #expect(error?.message.contains("1024 bytes") == true)
    }

    @Test func unannouncedBodyOverTheLimitIsTooLarge() async throws {
        let server = try TestHTTPServer { _ in .respondUntilClose(.text(String(repeating: "x", count: 5000))) }
        defer { server.stop() }
        let transport = CurlTransport(configuration: .init(maxResponseBytes: 1024))

        let error = await #expect(throws: TransportError.self) {
            try await transport.send(TransportRequest(url: server.url("/big")))
        }

        #expect(error?.code == .tooLarge)
    }

    @Test func bodyAtTheLimitIsAccepted() async throws {
        let server = try TestHTTPServer { _ in .respondUntilClose(.text(String(repeating: "x", count: 1024))) }
        defer { server.stop() }
        let transport = CurlTransport(configuration: .init(maxResponseBytes: 1024))

        let response = try await transport.send(TransportRequest(url: server.url("/exact")))

        #expect(response.body.count == 1024)
    }

    @Test func cancellingAParkedRequestThrowsCancelledAndTheTransportKeepsWorking() async throws {
        let server = try TestHTTPServer { request in
            request.path == "/v1/events" ? .hold : .respond(.text("still here"))
        }
        defer { server.stop() }
        let transport = CurlTransport()

        let poll = Task {
            try await transport.send(TransportRequest(url: server.url("/v1/events"), timeout: .seconds(50)))
        }
        #expect(await server.waitForParked(1))
        poll.cancel()
        let error = await #expect(throws: TransportError.self) { try await poll.value }
        let after = try await transport.send(TransportRequest(url: server.url("/v1/me")))

        #expect(error?.code == .cancelled)
        #expect(error?.requestNotSent == false)
        #expect(after.status == 200)
        #expect(after.body == Data("still here".utf8))
    }

    @Test func requestFromAnAlreadyCancelledTaskIsNeverSent() async throws {
        let server = try TestHTTPServer { _ in .respond(.text("ok")) }
        defer { server.stop() }
        let transport = CurlTransport()

        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transport.send(TransportRequest(url: server.url("/x")))
        }
        let error = await #expect(throws: TransportError.self) { try await task.value }

        #expect(error?.code == .cancelled)
        #expect(error?.requestNotSent == true)
        #expect(server.requests.isEmpty)
    }

    @Test func shutdownCancelsOutstandingRequestsAndRefusesNewOnes() async throws {
        let server = try TestHTTPServer { _ in .hold }
        defer { server.stop() }
        let transport = CurlTransport()

        let poll = Task { try await transport.send(TransportRequest(url: server.url("/v1/events"))) }
        #expect(await server.waitForParked(1))
        await transport.shutdown()
        let outstanding = await #expect(throws: TransportError.self) { try await poll.value }
        let later = await #expect(throws: TransportError.self) {
            try await transport.send(TransportRequest(url: server.url("/v1/events")))
        }

        #expect(outstanding?.code == .cancelled)
        #expect(outstanding?.message.contains("shut down") == true)
        #expect(later?.code == .cancelled)
        #expect(later?.requestNotSent == true)
    }

    @Test(arguments: ["ftp://127.0.0.1/x", "not a url", "http://", "/v1/relative", ""])
    func malformedOrNonHTTPURLIsRejectedBeforeSending(url: String) async throws {
        let error = await #expect(throws: TransportError.self) {
            try await CurlTransport().send(TransportRequest(url: url))
        }

        #expect(error?.code == .invalidURL)
        #expect(error?.requestNotSent == true)
    }

    @Test(arguments: [("X-Evil", "a\r\nInjected: yes"), ("Bad Name", "v"), ("", "v"), ("X-Nul", "a\u{0}b")])
    func headerThatCouldSmuggleLinesIsRejected(name: String, value: String) async throws {
        let error = await #expect(throws: TransportError.self) {
            try await CurlTransport().send(TransportRequest(url: "http://127.0.0.1:9/", headers: [(name, value)]))
        }

        #expect(error?.code == .other)
        #expect(error?.requestNotSent == true)
    }

    @Test func invalidConfigurationFailsEveryRequestWithAClearError() async throws {
        let transport = CurlTransport(configuration: .init(maxResponseBytes: 0))

        let error = await #expect(throws: TransportError.self) {
            try await transport.send(TransportRequest(url: "http://127.0.0.1:9/"))
        }

        #expect(error?.message == "invalid transport configuration: maxResponseBytes must be positive")
        #expect(transport.threadsStarted == 0)
    }
}

/// A port on 127.0.0.1 that refuses connections: bound but not listening, and held until
/// `close()`, so no other test can take it meanwhile.
struct RefusingPort {
    let fd: Int32
    let port: Int

    init() throws {
        let socket = try LoopbackSocket()
        fd = socket.descriptor
        port = socket.port
    }

    func close() { _ = Glibc.close(fd) }
}
