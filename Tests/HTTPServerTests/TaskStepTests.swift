import Foundation
import HTTPServer
import Synchronization
import Testing
import TestSupport

/// A request's task runs on MHD's thread for its connection: after each wait its next
/// step is handed back to the connection, not to a thread of the global pool, and a task
/// that outlives its request still runs to its end.
@Suite struct TaskStepTests {
    /// The name of the calling thread (MHD names its own `MHD-worker`).
    static func threadName() -> String {
        let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
        return name.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func stepsAfterEachWaitRunOnTheConnectionsThread() async throws {
        let gates = (0..<3).map { _ in Gate() }
        let entered = EventLog<Int>()
        let threads = EventLog<[String]>()
        let responder = TestResponder { _ in
            var names = [Self.threadName()]
            for (index, gate) in gates.enumerated() {
                entered.record(index)
                // Opened by the test's task, on a thread of the global pool.
                _ = await gate.wait()
                names.append(Self.threadName())
            }
            threads.record(names)
            return .text("done")
        }
        try await withHTTPServer(responder: responder) { server in
            let client = try RawHTTPClient(port: server.port)
            try client.send(get("/"))
            for gate in gates {
                _ = await entered.next()
                gate.open()
            }
            #expect(try await client.response().text == "done")
            let names = try #require(await threads.next().first)
            #expect(names.count == 4)
            #expect(names.allSatisfy { $0.hasPrefix("MHD") }, "\(names)")
            #expect(server.stats.requestsTotal == 1)
        }
    }

    @Test func childTasksOfAHandlerRunWithItAndItsAnswerWaitsForThem() async throws {
        let gate = Gate()
        let responder = TestResponder { _ in
            let parts = await withTaskGroup(of: String.self) { group in
                for index in 0..<4 {
                    group.addTask {
                        _ = await gate.wait()
                        return "\(index):\(Self.threadName().hasPrefix("MHD"))"
                    }
                }
                var parts: [String] = []
                for await part in group { parts.append(part) }
                return parts.sorted()
            }
            return .text(parts.joined(separator: ","))
        }
        try await withHTTPServer(responder: responder) { server in
            let client = try RawHTTPClient(port: server.port)
            try client.send(get("/"))
            gate.open()
            #expect(try await client.response().text == "0:true,1:true,2:true,3:true")
        }
    }

    @Test func aTaskThatOutlivesItsRequestRunsToItsEnd() async throws {
        let gate = Gate()
        let finished = EventLog<Bool>()
        let responder = TestResponder { _ in
            // Left running after the answer; whichever executor it lands on, it must go on.
            Task {
                _ = await gate.wait()
                try? await Task.sleep(for: .milliseconds(1))
                finished.record(true)
            }
            return .text("answered first")
        }
        try await withHTTPServer(responder: responder) { server in
            let client = try RawHTTPClient(port: server.port)
            try client.send(get("/"))
            #expect(try await client.response().text == "answered first")
            // The connection stays open and idle, then serves another request.
            gate.open()
            #expect(await finished.next() == [true])
            try client.send(get("/again"))
            #expect(try await client.response().text == "answered first")
        }
    }

    @Test func aHandlerWhoseClientLeftWhileItWaitedStillFinishes() async throws {
        let gate = Gate()
        let entered = EventLog<Bool>()
        let finished = EventLog<String>()
        let responder = TestResponder { _ in
            entered.record(true)
            _ = await gate.wait()
            // Its next step cannot run on a connection that is gone.
            _ = await Task.yield()
            finished.record(Self.threadName())
            return .text("nobody listens")
        }
        try await withHTTPServer(responder: responder) { server in
            let clients = try (0..<8).map { _ in try RawHTTPClient(port: server.port) }
            for client in clients { try client.send(get("/")) }
            _ = await entered.next(clients.count)
            for client in clients { client.reset() }
            gate.open()
            #expect(await finished.next(clients.count).count == clients.count)
            let probe = try RawHTTPClient(port: server.port)
            try probe.send(get("/probe"))
            _ = await entered.next()
            gate.open()
            #expect(try await probe.response().status == 200)
        }
    }
}
