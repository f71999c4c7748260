import Foundation
import HTTPServer
import Synchronization

/// A responder made of closures, with an error format of its own so tests can tell
/// the server used it.
struct TestResponder: HTTPResponder {
    var handler: @Sendable (Request) async -> Response
    var limits: @Sendable (RequestHead) -> Int? = { _ in nil }
    /// What to do before the body; by default, read it within `limits`.
    var admit: (@Sendable (RequestHead) -> BodyAdmission)?
    /// The decision of an admission that said `.check`.
    var check: @Sendable (RequestHead) async -> BodyAdmission = { _ in .read(limit: nil) }

    func respond(to request: Request) async -> Response { await handler(request) }

    func admission(for head: RequestHead) -> BodyAdmission { admit?(head) ?? .read(limit: limits(head)) }

    func checkedAdmission(for head: RequestHead) async -> BodyAdmission { await check(head) }

    func errorResponse(status: Int, message: String) -> Response {
        Response(status: status, headers: ["Content-Type": "application/json"],
                 body: Data("{\"error\":\"\(message)\"}".utf8))
    }
}

extension Response {
    static func text(_ text: String, status: Int = 200) -> Response {
        Response(status: status, headers: ["Content-Type": "text/plain"], body: Data(text.utf8))
    }
}

/// A gate handlers wait at until a test opens it. `wait()` returns false if the waiting
/// task is cancelled first; `whenOpen` runs an action once it opens (a deferred answer).
final class Gate: Sendable {
    private struct State {
        var open = false
        var waiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
        var cancelled: Set<UInt64> = []
        var actions: [@Sendable () -> Void] = []
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    func open() {
        let (waiters, actions) = state.withLock { state in
            state.open = true
            defer {
                state.waiters.removeAll()
                state.actions.removeAll()
            }
            return (Array(state.waiters.values), state.actions)
        }
        for waiter in waiters { waiter.resume(returning: true) }
        for action in actions { action() }
    }

    /// Runs `action` when the gate opens (at once if it is open).
    func whenOpen(_ action: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            if state.open { return true }
            state.actions.append(action)
            return false
        }
        if now { action() }
    }

    func wait() async -> Bool {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let immediate: Bool? = state.withLock { state in
                    if state.open { return true }
                    if state.cancelled.remove(id) != nil { return false }
                    state.waiters[id] = continuation
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                if let waiter = state.waiters.removeValue(forKey: id) { return Optional(waiter) }
                state.cancelled.insert(id)
                return nil
            }
            waiter?.resume(returning: false)
        }
    }
}

/// Events handlers report to the test, in order.
final class EventLog<Event: Sendable>: Sendable {
    let stream: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation

    init() { (stream, continuation) = AsyncStream.makeStream() }

    func record(_ event: Event) { continuation.yield(event) }

    /// The next `count` events.
    func next(_ count: Int = 1) async -> [Event] {
        var events: [Event] = []
        for await event in stream {
            events.append(event)
            if events.count == count { break }
        }
        return events
    }
}

/// What a long-poll handler reports to its test.
enum ParkEvent: Sendable, Equatable {
    case parked
    case woken
    case cancelled
}

/// A long-poll handler: defers its answer, reports each step to `events`, and answers
/// "woken" when `gate` opens or "cancelled" when the client hangs up or the server stops.
func longPollResponder(gate: Gate, events: EventLog<ParkEvent>) -> TestResponder {
    TestResponder { request in
        guard let deferred = request.deferResponse() else { return .text("no connection", status: 500) }
        deferred.onCancel {
            deferred.send(.text("cancelled"))
            events.record(.cancelled)
        }
        events.record(.parked)
        gate.whenOpen {
            deferred.send(.text("woken"))
            events.record(.woken)
        }
        return deferred.response
    }
}
