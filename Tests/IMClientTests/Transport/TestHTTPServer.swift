import Foundation
import Synchronization

/// A scriptable HTTP/1.1 server on 127.0.0.1 (ephemeral port) for the transport tests.
///
/// One thread runs a `poll(2)` loop over every socket, so parked requests cost no threads.
/// For each complete request (head plus `Content-Length` body) it asks `script` what to do.
/// The server counts accepted connections and parked requests; tests await those counts
/// instead of sleeping.
final class TestHTTPServer: Sendable {
    /// A request as the server read it.
    struct ReceivedRequest: Sendable {
        var method: String
        var path: String
        var headers: [(name: String, value: String)]
        var body: Data

        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    /// A response to write.
    struct Reply: Sendable {
        var status: Int
        var headers: [(name: String, value: String)] = []
        var body = Data()

        static func text(_ text: String, status: Int = 200) -> Reply {
            Reply(status: status, headers: [("Content-Type", "text/plain")], body: Data(text.utf8))
        }
    }

    /// What the server does with one request.
    enum Action: Sendable {
        /// Answers at once; the connection stays open for the next request.
        case respond(Reply)
        /// Parks the request (a long-poll) until `releaseParked()` answers it with the reply.
        case park(Reply)
        /// Parks the request and never answers it.
        case hold
        /// Closes the connection without answering.
        case close
        /// Sends the head and half the body (announced in full), then closes.
        case halfResponse(Reply)
        /// Sends the body without `Content-Length`, delimited by closing the connection.
        case respondUntilClose(Reply)
    }

    /// The port the server listens on.
    let port: Int
    let state = State()
    private let loop: Loop

    init(script: @escaping @Sendable (ReceivedRequest) -> Action) throws {
        loop = try Loop(script: script, state: state)
        port = loop.port
        loop.start()
    }

    deinit {
        loop.stop()
    }

    /// `http://127.0.0.1:<port><path>`.
    func url(_ path: String = "/") -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Connections accepted so far.
    var acceptedConnections: Int { state.counters.withLock { $0.acceptedConnections } }
    /// Requests read so far, in order.
    var requests: [ReceivedRequest] { state.counters.withLock { $0.requests } }

    /// Returns true once `count` requests have been parked in total, false if that has not
    /// happened within `limit` (a safety net so a broken test fails instead of hanging).
    func waitForParked(_ count: Int, limit: Duration = .seconds(30)) async -> Bool {
        await state.waitForParked(count, limit: limit)
    }

    /// Answers every parked request with the reply it was parked with.
    func releaseParked() { loop.command(.release) }

    /// Closes every socket and ends the server's thread.
    func stop() { loop.stop() }

    /// Counters the loop thread updates and tests read.
    final class State: Sendable {
        struct Counters {
            var acceptedConnections = 0
            var parkedRequests = 0
            var requests: [ReceivedRequest] = []
            var waiters: [(parked: Int, continuation: CheckedContinuation<Bool, Never>)] = []
        }

        let counters = Mutex(Counters())

        func accepted() { counters.withLock { $0.acceptedConnections += 1 } }
        func received(_ request: ReceivedRequest) { counters.withLock { $0.requests.append(request) } }

        func parked() {
            counters.withLock { $0.parkedRequests += 1 }
            resumeWaiters()
        }

        func waitForParked(_ count: Int, limit: Duration) async -> Bool {
            let timer = Task {
                try? await Task.sleep(for: limit)
                self.resumeWaiters(all: true)
            }
            defer { timer.cancel() }
            return await withCheckedContinuation { continuation in
                let reached = counters.withLock { state in
                    if state.parkedRequests >= count { return true }
                    state.waiters.append((count, continuation))
                    return false
                }
                if reached { continuation.resume(returning: true) }
            }
        }

        private func resumeWaiters(all: Bool = false) {
            let due = counters.withLock { state in
                let parked = state.parkedRequests
                let due = state.waiters.filter { all || $0.parked <= parked }
                state.waiters.removeAll { all || $0.parked <= parked }
                return due.map { ($0.continuation, $0.parked <= parked) }
            }
            for (continuation, reached) in due { continuation.resume(returning: reached) }
        }
    }
}
