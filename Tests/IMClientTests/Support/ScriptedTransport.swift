import Foundation
import IMClient
import IMProtocol
import Synchronization
import TestSupport

/// A `FakeTransport` that answers from a script in order and then parks every further
/// request until it is cancelled, like a long-poll with nothing to say. Tests can await
/// the arrival of the n-th request.
final class ScriptedTransport: HTTPTransport {
    /// One scripted outcome.
    enum Answer: Sendable {
        case respond(TransportResponse)
        case fail(TransportError)
        /// Waits until the request is cancelled.
        case park
    }

    private struct State {
        var answers: ArraySlice<Answer>
        var requests: [TransportRequest] = []
    }

    private let state: Mutex<State>

    init(_ answers: [Answer]) {
        state = Mutex(State(answers: answers[...]))
    }

    /// Every request so far, oldest first.
    var requests: [TransportRequest] { state.withLock { $0.requests } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let answer = state.withLock { state -> Answer in
            state.requests.append(request)
            return state.answers.popFirst() ?? .park
        }
        switch answer {
        case .respond(let response):
            return response
        case .fail(let error):
            throw error
        case .park:
            do {
                try await Task.sleep(for: .seconds(3600))
            } catch {
                throw TransportError(code: .cancelled, message: "request to \(request.url) cancelled")
            }
            throw TransportError(code: .timedOut, message: "parked too long")
        }
    }

    /// Returns once `count` requests have arrived (fails the test after 10 s).
    func waitForRequests(_ count: Int) async throws {
        try await eventually("waiting for request #\(count)") { self.requests.count >= count }
    }
}

/// The query arguments of a request's URL.
func queryItems(_ request: TransportRequest) -> [String: String] {
    guard let components = URLComponents(string: request.url) else { return [:] }
    var items: [String: String] = [:]
    for item in components.queryItems ?? [] { items[item.name] = item.value ?? "" }
    return items
}

/// The path of a request's URL.
func path(_ request: TransportRequest) -> String {
    URLComponents(string: request.url)?.percentEncodedPath ?? ""
}
