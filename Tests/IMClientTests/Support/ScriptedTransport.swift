import Foundation
import IMClient
import IMProtocol
import Synchronization

/// A `FakeTransport` that answers from a script in order and then parks every further
/// request until it is cancelled, like a long-poll with nothing to say. Tests can await
/// the arrival of the n-th request instead of sleeping.
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
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state: Mutex<State>

    init(_ answers: [Answer]) {
        state = Mutex(State(answers: answers[...]))
    }

    /// Every request so far, oldest first.
    var requests: [TransportRequest] { state.withLock { $0.requests } }

    /// Adds answers to the end of the script.
    func append(_ answers: Answer...) {
        state.withLock { $0.answers.append(contentsOf: answers) }
    }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let (answer, ready) = state.withLock { state -> (Answer, [CheckedContinuation<Void, Never>]) in
            state.requests.append(request)
            let count = state.requests.count
            let ready = state.waiters.filter { $0.count <= count }.map(\.continuation)
            state.waiters.removeAll { $0.count <= count }
            return (state.answers.popFirst() ?? .park, ready)
        }
        for continuation in ready { continuation.resume() }
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
        try await withHangGuard("waiting for request #\(count)") {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = self.state.withLock { state -> Bool in
                    if state.requests.count >= count { return true }
                    state.waiters.append((count, continuation))
                    return false
                }
                if now { continuation.resume() }
            }
        }
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
