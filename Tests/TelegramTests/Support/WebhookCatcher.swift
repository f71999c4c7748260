import Foundation
import HTTPServer
import Synchronization
import TestSupport

/// A bot's webhook for tests: an HTTP server on 127.0.0.1 that records each request and
/// answers the first `failing` of them 500, the rest 200.
final class WebhookCatcher: Sendable {
    /// Records and answers.
    private final class Recorder: HTTPResponder, Sendable {
        let received = Mutex<[Request]>([])
        let failing: Int

        init(failing: Int) { self.failing = failing }

        func respond(to request: Request) async -> Response {
            let count = received.withLock { list -> Int in
                list.append(request)
                return list.count
            }
            return Response(status: count <= failing ? 500 : 200)
        }
    }

    private let recorder: Recorder
    let server: HTTPServer

    init(failing: Int = 0) throws {
        recorder = Recorder(failing: failing)
        var configuration = HTTPServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        server = HTTPServer(configuration: configuration, responder: recorder)
        try server.start()
    }

    var url: String { "http://127.0.0.1:\(server.port)/hook" }

    var requests: [Request] { recorder.received.withLock { $0 } }

    /// The updates posted so far, as JSON objects.
    var updates: [[String: Any]] {
        requests.compactMap { (try? JSONSerialization.jsonObject(with: $0.body)) as? [String: Any] }
    }

    func stop() async { await server.shutdown() }
}
