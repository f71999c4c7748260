import Foundation
import HTTPServer
import Testing
import Synchronization
import TestSupport

@Suite struct ShutdownTests {
    @Test func shutdownAnswersParkedDrainsInFlightRefusesNewAndFreesThePort() async throws {
        let pollGate = Gate()
        let pollEvents = EventLog<ParkEvent>()
        let longPoll = longPollResponder(gate: pollGate, events: pollEvents)
        let slowGate = Gate()
        let slowEntered = EventLog<Bool>()
        let responder = TestResponder { request in
            switch request.path {
            case "/events":
                return await longPoll.respond(to: request)
            case "/slow":
                slowEntered.record(true)
                // Not parked: shutdown lets it finish rather than cancel it.
                return .text(await slowGate.wait() ? "slow done" : "slow cancelled")
            default:
                return .text("fast")
            }
        }
        // The idle connection must outlive a slow, loaded test run: its next request's
        // headers are not due for two minutes (header timeouts are tested elsewhere).
        let server = HTTPServer(configuration: testConfiguration(headerTimeout: 120), responder: responder)
        try server.start()
        try await shutsDownAfter(server) {
            let port = server.port

            let idle = try RawHTTPClient(port: port)
            try idle.send(get("/"))
            #expect(try await idle.response().text == "fast")
            let poller = try RawHTTPClient(port: port)
            try poller.send(get("/events"))
            #expect(await pollEvents.next() == [.parked])
            let slow = try RawHTTPClient(port: port)
            try slow.send(get("/slow"))
            _ = await slowEntered.next()

            let stopping = Task { await server.shutdown() }

            // Parked waits are cancelled first, and answered at once.
            #expect(try await poller.response().text == "cancelled")
            // A request arriving now on an open connection is refused.
            try idle.send(get("/"))
            let refused = try await idle.response()
            #expect(refused.status == 503)
            #expect(refused.header("Content-Type") == "application/json")
            // So is one on a connection opened now: accepted, not refused at connect (and
            // not an abort: see `MHDDaemon.stop`).
            let late = try RawHTTPClient(port: port)
            try late.send(get("/"))
            let lateAnswer = try await late.response()
            #expect(lateAnswer.status == 503)
            #expect(lateAnswer.header("Content-Type") == "application/json")
            #expect(lateAnswer.header("Connection")?.lowercased() == "close")
            // The in-flight handler finishes within the grace period and its answer is sent.
            slowGate.open()
            #expect(try await slow.response().text == "slow done")

            await stopping.value
            await server.shutdown()  // idempotent
            #expect(server.stats.inFlightRequests == 0)

            // The port is free again.
            let successor = HTTPServer(
                configuration: {
                    var configuration = testConfiguration()
                    configuration.port = port
                    return configuration
                }(),
                responder: responder)
            try successor.start()
            #expect(successor.port == port)
            await successor.shutdown()
        }
    }

    @Test func handlerStillRunningAfterTheGraceGets503AndShutdownCompletes() async throws {
        let entered = EventLog<Bool>()
        let gate = Gate()
        let responder = TestResponder { _ in
            entered.record(true)
            _ = await gate.wait()
            return .text("too late")
        }
        let server = HTTPServer(
            configuration: testConfiguration(shutdownGrace: 0), responder: responder)
        try server.start()
        try await shutsDownAfter(server) {
            let client = try RawHTTPClient(port: server.port)
            try client.send(get("/"))
            _ = await entered.next()

            await server.shutdown()
            let response = try await client.response()
            #expect(response.status == 503)
            gate.open()  // the late handler's answer goes nowhere, harmlessly
        }
    }

    /// Stopping a server while clients keep opening connections to it, again and again:
    /// every request gets 200 or 503 (or a closed connection once the server is gone), the
    /// process survives, and nothing is left in flight.
    @Test func shutdownsUnderAStreamOfNewConnectionsStopCleanly() async throws {
        let responder = TestResponder { _ in .text("up") }
        for _ in 0..<20 {
            let server = HTTPServer(configuration: testConfiguration(), responder: responder)
            try server.start()
            try await shutsDownAfter(server) {
                let flood = ConnectionFlood(port: server.port, clients: 4)
                // The flood is under way before the stop begins.
                _ = await flood.answers.next(8)
                await server.shutdown()
                let statuses = try await flood.stop()
                #expect(statuses.allSatisfy { $0 == 200 || $0 == 503 }, "\(Set(statuses))")
                #expect(server.stats.inFlightRequests == 0)
            }
        }
    }

    @Test func secondServerOnABoundPortFailsWithAddressInUse() async throws {
        let responder = TestResponder { _ in .text("") }
        try await withHTTPServer(responder: responder) { server in
            var configuration = testConfiguration()
            configuration.port = server.port
            let second = HTTPServer(configuration: configuration, responder: responder)
            let error = #expect(throws: HTTPServerError.self) { try second.start() }
            #expect(error?.code == .addressInUse)
            #expect(error?.message.contains("127.0.0.1:\(server.port)") == true)
        }
    }

    @Test func unusableAddressFailsWithCannotBind() async throws {
        var configuration = testConfiguration()
        configuration.host = "192.0.2.1"  // TEST-NET-1: never a local address
        let server = HTTPServer(configuration: configuration, responder: TestResponder { _ in .text("") })
        let error = #expect(throws: HTTPServerError.self) { try server.start() }
        #expect(error?.code == .cannotBind)
        #expect(error?.message.contains("192.0.2.1:0") == true)
    }

    @Test func runServesUntilItsTaskIsCancelled() async throws {
        let server = HTTPServer(configuration: testConfiguration(), responder: TestResponder { _ in .text("up") })
        let running = Task { try await server.run() }
        // `run` starts the server; `start` again is a no-op that waits for nothing.
        try server.start()
        try await shutsDownAfter(server) {
            let client = try RawHTTPClient(port: server.port)
            try client.send(get("/"))
            #expect(try await client.response().text == "up")

            running.cancel()
            try await running.value
            // Stopped: the server closed the connection.
            _ = try await client.untilClosed()
            #expect(throws: HTTPServerError.self) { try server.start() }
        }
    }
}

@Suite struct ClientGoneWhileSuspendedTests {
    /// A client that resets its connection while its (unparked) handler still runs must
    /// not leave the request counted as suspended: shutdown then finds nothing to wait for.
    @Test func aClientThatLeavesDuringAHandlerLeavesNothingSuspended() async throws {
        let entered = EventLog<Bool>()
        let gate = Gate()
        let finished = EventLog<Bool>()
        let responder = TestResponder { _ in
            entered.record(true)
            _ = await gate.wait()
            finished.record(true)
            return .text("nobody listens")
        }
        let (server, logged) = try startedLoggingServer(testConfiguration(), responder: responder)
        try await shutsDownAfter(server) {
            // Several clients, reset while their handlers run, as a load generator that stops
            // mid-flight does.
            let clients = try (0..<32).map { _ in try RawHTTPClient(port: server.port) }
            for client in clients { try client.send(get("/")) }
            _ = await entered.next(clients.count)
            for client in clients { client.reset() }
            gate.open()
            _ = await finished.next(clients.count)
            // A fresh request on another connection proves MHD got past the closed one.
            let probe = try RawHTTPClient(port: server.port)
            try probe.send(get("/probe"))
            _ = await entered.next()
            #expect(try await probe.response().status == 200)
            await server.shutdown()
            #expect(!logged.lines.contains { $0.contains("did not resume") }, "\(logged.lines)")
        }
    }
}

/// Lines the server logged, for assertions.
final class ShutdownLogLines: Sendable {
    private let storage = Mutex<[String]>([])
    func append(_ line: String) { storage.withLock { $0.append(line) } }
    var lines: [String] { storage.withLock { $0 } }
}

/// A server started with `configuration`, and the lines it logs.
func startedLoggingServer(
    _ configuration: HTTPServerConfiguration, responder: some HTTPResponder
) throws -> (HTTPServer, ShutdownLogLines) {
    let logged = ShutdownLogLines()
    var configuration = configuration
    configuration.errorLog = { logged.append($0) }
    let server = HTTPServer(configuration: configuration, responder: responder)
    try server.start()
    return (server, logged)
}

/// Clients on threads of their own, each opening a connection, sending one request and
/// reading its answer, over and over until stopped or the server is gone.
private final class ConnectionFlood: Sendable {
    /// Each answer's status as it arrives.
    let answers = EventLog<Int>()
    private let stopped = Mutex(false)
    private let statuses = Mutex<[Int]>([])
    private let finished = EventLog<Bool>()
    private let clients: Int

    init(port: Int, clients: Int) {
        self.clients = clients
        for _ in 0..<clients {
            Thread { [self] in
                while !stopped.withLock({ $0 }) {
                    // A refused connect or a closed connection: the server has stopped.
                    guard let client = try? RawHTTPClient(port: port),
                          (try? client.send(get("/"))) != nil,
                          let response = try? RawHTTPClient.blockingResponse(client)
                    else { break }
                    statuses.withLock { $0.append(response.status) }
                    answers.record(response.status)
                }
                finished.record(true)
            }.start()
        }
    }

    /// Stops every client and returns the statuses they were answered.
    func stop() async throws -> [Int] {
        stopped.withLock { $0 = true }
        _ = await finished.next(clients)
        return statuses.withLock { $0 }
    }
}
