import Synchronization

/// An `HTTPTransport` that answers from code instead of the network, for tests of the
/// layers above the transport (retries, long-poll resume, error mapping).
///
/// It records every request. A handler may suspend (e.g. to emulate a parked long-poll);
/// `CancellationError` from it becomes `TransportError` `.cancelled`, as from the real one.
public final class FakeTransport: HTTPTransport {
    /// Produces the response, or throws a `TransportError`, for one request.
    public typealias Handler = @Sendable (TransportRequest) async throws -> TransportResponse

    private let handler: Handler
    private let recorded = Mutex<[TransportRequest]>([])

    /// Answers every request with `handler`.
    public init(handler: @escaping Handler) {
        self.handler = handler
    }

    /// Answers requests with `script`'s outcomes in order; a request past the end fails with `.other`.
    public convenience init(script: [Result<TransportResponse, TransportError>]) {
        let remaining = ScriptQueue(script)
        self.init { request in
            guard let next = remaining.next() else {
                throw TransportError(code: .other,
                                     message: "FakeTransport script has no answer left for \(request.method) \(request.url)")
            }
            return try next.get()
        }
    }

    /// Every request sent so far, oldest first.
    public var requests: [TransportRequest] {
        recorded.withLock { $0 }
    }

    /// Records `request` and answers it with the handler.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        recorded.withLock { $0.append(request) }
        do {
            try Task.checkCancellation()
            return try await handler(request)
        } catch is CancellationError {
            throw TransportError(code: .cancelled, message: "request to \(request.url) cancelled")
        }
    }
}

/// The outcomes of a scripted `FakeTransport`, handed out once each.
private final class ScriptQueue: Sendable {
    private let outcomes: Mutex<ArraySlice<Result<TransportResponse, TransportError>>>

    init(_ outcomes: [Result<TransportResponse, TransportError>]) {
        self.outcomes = Mutex(outcomes[...])
    }

    func next() -> Result<TransportResponse, TransportError>? {
        outcomes.withLock { $0.popFirst() }
    }
}
