import Foundation
import IMClient
import IMProtocol
import IMServer
import Synchronization
import TestSupport

/// The password every integration test account uses.
let password = "correct horse battery"

/// A client of `server` over the process's shared libcurl transport.
func makeClient(_ server: TestServer, token: String? = nil, device: String? = nil,
                configuration: IMClient.Configuration = IMClient.Configuration()) -> IMClient {
    IMClient(serverURL: server.baseURL, transport: TestClient.sharedTransport, token: token, device: device,
             configuration: configuration)
}

/// A registered client of `server`.
func registered(_ server: TestServer, _ username: String, device: String? = nil) async throws -> IMClient {
    let client = makeClient(server, device: device)
    try await client.register(username: username, password: password)
    return client
}

/// Forwards requests for `placeholder` to wherever the test server is now, so a client
/// keeps its URL while the server restarts on another port.
final class RepointableTransport: HTTPTransport {
    static let placeholder = "http://switchboard.invalid"
    private let target: Mutex<String>
    private let inner: any HTTPTransport

    init(target: String, inner: any HTTPTransport = TestClient.sharedTransport) {
        self.target = Mutex(target)
        self.inner = inner
    }

    /// Points later requests at `baseURL`.
    func repoint(to baseURL: String) { target.withLock { $0 = baseURL } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        var forwarded = request
        if request.url.hasPrefix(Self.placeholder) {
            forwarded.url = target.withLock { $0 } + request.url.dropFirst(Self.placeholder.count)
        }
        return try await inner.send(forwarded)
    }
}

/// Forwards every request, but for the first one `matching` it throws `.connectionLost`
/// after the server has answered: the server acted, the client never heard.
final class DropOneAnswerTransport: HTTPTransport {
    private let matching: @Sendable (TransportRequest) -> Bool
    private let dropped = Mutex(false)
    private let seen = Mutex<[TransportRequest]>([])

    init(matching: @escaping @Sendable (TransportRequest) -> Bool) {
        self.matching = matching
    }

    /// Every request forwarded, oldest first.
    var requests: [TransportRequest] { seen.withLock { $0 } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        seen.withLock { $0.append(request) }
        let response = try await TestClient.sharedTransport.send(request)
        let drop = matching(request) && dropped.withLock { done in
            defer { done = true }
            return !done
        }
        if drop {
            throw TransportError(
                code: .connectionLost, message: "connection to the server lost before a complete response (dropped by the test)")
        }
        return response
    }
}

/// Collects what a consumer task takes from an event stream.
final class StreamCollector: Sendable {
    private let state = Mutex<(elements: [LiveEvent], ending: String?)>(([], nil))

    /// Consumes `stream` in a new task until it ends or the task is cancelled.
    func consume(_ stream: EventStream) -> Task<Void, Never> {
        Task {
            do {
                for try await element in stream { state.withLock { $0.elements.append(element) } }
                state.withLock { $0.ending = "end" }
            } catch let error as IMClientError {
                state.withLock { $0.ending = "\(error.code): \(error.message)" }
            } catch {
                state.withLock { $0.ending = "unexpected \(error)" }
            }
        }
    }

    var elements: [LiveEvent] { state.withLock { $0.elements } }
    /// "end", or the code and message of the error that ended the stream; nil while it runs.
    var ending: String? { state.withLock { $0.ending } }

    /// The texts of message events, in the order handed over.
    var messages: [String] { elements.compactMap { $0.event?.type == .message ? $0.event?.message?.text : nil } }

    /// Waits until `condition` holds for what was collected.
    func wait(_ what: String, until condition: @escaping @Sendable (StreamCollector) -> Bool) async throws {
        try await eventually(what) { condition(self) }
    }
}

/// A gate for an injected sleep: every wait is recorded and held until the test opens
/// the gate or lets single waits through.
final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var permits = 0
        var waiting = 0
        var recorded: [Duration] = []
    }

    private let state = Mutex(State())

    /// The waits asked for so far.
    var recorded: [Duration] { state.withLock { $0.recorded } }
    /// True while a wait is being held.
    var isHolding: Bool { state.withLock { $0.waiting > 0 } }

    /// Lets every wait through from now on.
    func open() { state.withLock { $0.isOpen = true } }

    /// Lets one held (or the next) wait through.
    func letOneThrough() { state.withLock { $0.permits += 1 } }

    /// A sleep function that records the wait and returns once the gate lets it.
    var sleep: SleepFunction {
        { [self] duration in
            state.withLock {
                $0.recorded.append(duration)
                $0.waiting += 1
            }
            defer { state.withLock { $0.waiting -= 1 } }
            try await eventually("the gate to let a wait through") {
                self.state.withLock { state in
                    if state.isOpen { return true }
                    guard state.permits > 0 else { return false }
                    state.permits -= 1
                    return true
                }
            }
        }
    }
}

/// The server's parked polls, read from its metrics.
func parkedPolls(_ server: TestServer) async throws -> Int {
    let text = try await server.client.get("/metrics").text
    let line = text.split(separator: "\n").first { $0.hasPrefix("switchboard_parked_polls ") }
    return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? -1
}

/// A fresh cursor for the login of `client`, taken with a raw poll.
func freshCursor(_ server: TestServer, token: String?) async throws -> String {
    try await TestClient(server: server, token: token).get("/v1/events").decode(EventBatch.self).cursor
}
