import Foundation
import HTTPServer
import Synchronization
import Testing
import TestSupport

/// Handles of deferred answers, handed from the responder to the test.
final class DeferredHandles: Sendable {
    private let stream: AsyncStream<DeferredResponse>
    private let continuation: AsyncStream<DeferredResponse>.Continuation
    let cancelled = EventLog<Bool>()

    init() { (stream, continuation) = AsyncStream.makeStream() }

    /// A responder that defers every request and hands over its handle; a hang-up or
    /// shutdown is recorded in `cancelled` and answered "cancelled".
    var responder: TestResponder {
        TestResponder { [self] request in
            guard let deferred = request.deferResponse() else { return .text("no connection", status: 500) }
            deferred.onCancel { [self] in
                deferred.send(.text("cancelled"))
                cancelled.record(true)
            }
            continuation.yield(deferred)
            return deferred.response
        }
    }

    func next() async -> DeferredResponse? {
        for await handle in stream { return handle }
        return nil
    }
}

@Suite(.timeLimit(.minutes(1))) struct DeferredResponseTests {
    @Test func aDeferredAnswerIsSentWhenAnotherTaskGivesIt() async throws {
        let handles = DeferredHandles()
        try await withHTTPServer(responder: handles.responder) { server in
            let client = try RawHTTPClient(port: server.port)
            try client.send(get("/events"))
            let deferred = try #require(await handles.next())
            #expect(server.stats.parkedRequests == 1)
            #expect(server.stats.inFlightRequests == 1)

            Task { deferred.send(.text("later")) }
            #expect(try await client.response().text == "later")
            #expect(server.stats.parkedRequests == 0)
            // The connection is still usable.
            try client.send(get("/events"))
            let second = try #require(await handles.next())
            second.send(.text("again"))
            #expect(try await client.response().text == "again")
        }
    }

    @Test func onlyTheFirstAnswerIsSent() async throws {
        let handles = DeferredHandles()
        try await withHTTPServer(responder: handles.responder) { server in
            let client = try RawHTTPClient(port: server.port)
            try client.send(get("/events"))
            let deferred = try #require(await handles.next())
            deferred.send(.text("first"))
            deferred.send(.text("second"))
            #expect(try await client.response().text == "first")
            try client.send(get("/events"))
            let next = try #require(await handles.next())
            next.send(.text("next"))
            #expect(try await client.response().text == "next")
        }
    }

    @Test func aClientHangingUpCancelsTheDeferredAnswer() async throws {
        let handles = DeferredHandles()
        try await withHTTPServer(responder: handles.responder) { server in
            let client = try RawHTTPClient(port: server.port)
            try client.send(get("/events"))
            _ = try #require(await handles.next())
            client.close()
            #expect(await handles.cancelled.next() == [true])
            #expect(server.stats.clientHangups == 1)
            #expect(server.stats.parkedRequests == 0)
        }
    }

    @Test func shutdownCancelsDeferredAnswersAndSendsWhatTheyAnswer() async throws {
        let handles = DeferredHandles()
        let server = HTTPServer(configuration: testConfiguration(), responder: handles.responder)
        try server.start()
        try await shutsDownAfter(server) {
            let client = try RawHTTPClient(port: server.port)
            try client.send(get("/events"))
            _ = try #require(await handles.next())
            let stopping = Task { await server.shutdown() }
            #expect(await handles.cancelled.next() == [true])
            #expect(try await client.response().text == "cancelled")
            await stopping.value
            #expect(server.stats.inFlightRequests == 0)
            #expect(server.stats.parkedRequests == 0)
        }
    }

    @Test func aResponderThatDefersButAnswersDirectlyEndsTheDeferral() async throws {
        let kept = Mutex<DeferredResponse?>(nil)
        let responder = TestResponder { request in
            kept.withLock { $0 = request.deferResponse() }
            return .text("direct")
        }
        try await withHTTPServer(responder: responder) { server in
            let client = try RawHTTPClient(port: server.port)
            try client.send(get("/"))
            #expect(try await client.response().text == "direct")
            #expect(server.stats.parkedRequests == 0)
            // A late answer through the abandoned handle changes nothing.
            kept.withLock { $0 }?.send(.text("late"))
            try client.send(get("/"))
            #expect(try await client.response().text == "direct")
        }
    }

    @Test func aHangUpDuringASecondParkOnOneConnectionCancelsItsAnswer() async throws {
        // The socket stays in the hang-up watcher's set between parks; the second park
        // must re-arm it.
        let first = Gate()
        let events = EventLog<ParkEvent>()
        let polls = ["/first": longPollResponder(gate: first, events: events),
                     "/second": longPollResponder(gate: Gate(), events: events)]
        let responder = TestResponder { request in
            await polls[request.path]?.respond(to: request) ?? .text("no such poll", status: 404)
        }
        try await withHTTPServer(responder: responder) { server in
            let client = try RawHTTPClient(port: server.port)
            try client.send(get("/first"))
            #expect(await events.next() == [.parked])
            first.open()
            #expect(try await client.response().text == "woken")
            #expect(await events.next() == [.woken])

            try client.send(get("/second"))
            #expect(await events.next() == [.parked])
            client.close()
            #expect(await events.next() == [.cancelled])
            #expect(server.stats.parkedRequests == 0)
            #expect(server.stats.clientHangups == 1)
        }
    }

    @Test func fiveHundredConcurrentDeferredAnswersAreAllSent() async throws {
        let count = 500
        let gate = Gate()
        let events = EventLog<ParkEvent>()
        try await withHTTPServer(responder: longPollResponder(gate: gate, events: events)) { server in
            var clients: [RawHTTPClient] = []
            for index in 0..<count {
                let client = try RawHTTPClient(port: server.port)
                try client.send(get("/events?client=\(index)"))
                clients.append(client)
            }
            #expect(await events.next(count).count == count)
            #expect(server.stats.parkedRequests == count)

            gate.open()
            let all = clients
            let responses = try await onThread { try all.map { try RawHTTPClient.blockingResponse($0) } }
            #expect(responses.allSatisfy { $0.status == 200 && $0.text == "woken" })
            #expect(responses.count == count)
            #expect(server.stats.parkedRequests == 0)
        }
    }

    @Test func aRequestMadeUpInATestCannotDefer() {
        #expect(Request(method: .get, path: "/events").deferResponse() == nil)
    }
}
