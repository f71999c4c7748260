import Foundation
import HTTPServer
import Lifecycle
import Synchronization
import TestSupport

/// A small HTTP service on 127.0.0.1 for the bots' `http` actions to call: it records
/// every request and answers with `answer`, which may wait at the endpoint's `gate`.
final class Endpoint: Sendable {
    private final class Recorder: Sendable {
        let requests = Mutex<[Request]>([])
    }

    private let recorded = Recorder()
    /// Opened by the test (and when the endpoint goes): answers that wait for it go out.
    let gate = Latch()
    private let server: HTTPServer

    init(_ answer: @escaping @Sendable (Request, Latch) async -> Response) throws {
        var configuration = HTTPServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.shutdownGrace = 1
        server = HTTPServer(configuration: configuration,
                            responder: Responder(recorded: recorded, gate: gate, answer: answer))
        try server.start()
    }

    var port: Int { server.port }
    var received: [Request] { recorded.requests.withLock { $0 } }

    func shutdown() async {
        gate.open()
        await server.shutdown()
    }

    private struct Responder: HTTPResponder {
        let recorded: Recorder
        let gate: Latch
        let answer: @Sendable (Request, Latch) async -> Response

        func respond(to request: Request) async -> Response {
            recorded.requests.withLock { $0.append(request) }
            return await answer(request, gate)
        }
    }
}

/// Runs `body` with an endpoint, shut down however `body` ends.
func withEndpoint<T>(_ answer: @escaping @Sendable (Request, Latch) async -> Response,
                     _ body: (Endpoint) async throws -> T) async throws -> T {
    let endpoint = try Endpoint(answer)
    return try await ensuring({ try await body(endpoint) }) { await endpoint.shutdown() }
}
