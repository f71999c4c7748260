import Foundation
import HTTPServer
import Testing

/// What a long-poll handler reports to its test.
enum ParkEvent: Sendable, Equatable {
    case parked
    case woken
    case cancelled
}

/// A long-poll handler: parks at `gate`, reports each step to `events`, answers
/// "woken" or "cancelled".
func longPollResponder(gate: Gate, events: EventLog<ParkEvent>) -> TestResponder {
    TestResponder { request in
        let woken = await request.parked {
            events.record(.parked)
            return await gate.wait()
        }
        events.record(woken ? .woken : .cancelled)
        return .text(woken ? "woken" : "cancelled")
    }
}

@Suite struct ParkedRequestTests {
    @Test func parkedRequestIsAnsweredWhenAnotherTaskWakesIt() async throws {
        let gate = Gate()
        let events = EventLog<ParkEvent>()
        try await withServer(responder: longPollResponder(gate: gate, events: events)) { server in
            let client = try RawHTTPClient(port: server.port)
            try client.send(get("/events"))
            #expect(await events.next() == [.parked])
            #expect(server.stats.parkedRequests == 1)
            #expect(server.stats.inFlightRequests == 1)

            Task { gate.open() }
            let response = try await client.response()
            #expect(response.text == "woken")
            #expect(await events.next() == [.woken])
            #expect(server.stats.parkedRequests == 0)
            // The connection is still usable.
            try client.send(get("/events"))
            #expect(try await client.response().text == "woken")
        }
    }

    @Test func clientHangingUpWhileParkedCancelsTheHandler() async throws {
        let gate = Gate()
        let events = EventLog<ParkEvent>()
        try await withServer(responder: longPollResponder(gate: gate, events: events)) { server in
            let client = try RawHTTPClient(port: server.port)
            try client.send(get("/events"))
            #expect(await events.next() == [.parked])
            client.close()
            #expect(await events.next() == [.cancelled])
            #expect(server.stats.parkedRequests == 0)
            #expect(server.stats.clientHangups == 1)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aHangUpDuringASecondParkOnOneConnectionCancelsTheHandler() async throws {
        // The socket stays in the hang-up watcher's set between parks; the second park
        // must re-arm it.
        let gates = ["/first": Gate(), "/second": Gate()]
        let events = EventLog<ParkEvent>()
        let responder = TestResponder { request in
            guard let gate = gates[request.path] else { return .text("no gate", status: 404) }
            let woken = await request.parked {
                events.record(.parked)
                return await gate.wait()
            }
            events.record(woken ? .woken : .cancelled)
            return .text(woken ? "woken" : "cancelled")
        }
        try await withServer(responder: responder) { server in
            let client = try RawHTTPClient(port: server.port)
            try client.send(get("/first"))
            #expect(await events.next() == [.parked])
            gates["/first"]?.open()
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

    @Test func handlerOutsideAParkedRegionIsNotCancelledByAHangUp() async throws {
        let workGate = Gate()
        let entered = EventLog<Bool>()
        let finished = EventLog<Bool>()
        let pollGate = Gate()
        let pollEvents = EventLog<ParkEvent>()
        let longPoll = longPollResponder(gate: pollGate, events: pollEvents)
        let responder = TestResponder { request in
            if request.path == "/events" { return await longPoll.respond(to: request) }
            entered.record(true)
            let opened = await workGate.wait()
            finished.record(opened)
            return .text("done")
        }
        try await withServer(responder: responder) { server in
            let worker = try RawHTTPClient(port: server.port)
            try worker.send(get("/work"))
            _ = await entered.next()
            worker.close()
            // A parked request that hangs up later is noticed, so by then the first
            // hang-up would have been too, had it been watched.
            let poller = try RawHTTPClient(port: server.port)
            try poller.send(get("/events"))
            #expect(await pollEvents.next() == [.parked])
            poller.close()
            #expect(await pollEvents.next() == [.cancelled])

            workGate.open()
            #expect(await finished.next() == [true])
            #expect(server.stats.clientHangups == 1)
        }
    }

    @Test func fiveHundredConcurrentParkedRequestsAreAllWokenAndAnswered() async throws {
        let count = 500
        let gate = Gate()
        let events = EventLog<ParkEvent>()
        try await withServer(responder: longPollResponder(gate: gate, events: events)) { server in
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
            let texts = try await onThread {
                try all.map { client in
                    try RawHTTPClient.blockingResponse(client)
                }
            }
            #expect(texts.allSatisfy { $0.status == 200 && $0.text == "woken" })
            #expect(texts.count == count)
            #expect(server.stats.parkedRequests == 0)
        }
    }

    @Test func parkedRunsTheBodyForARequestMadeUpInATest() async throws {
        let request = Request(method: .get, path: "/events")
        let value = await request.parked { 42 }
        #expect(value == 42)
    }
}
