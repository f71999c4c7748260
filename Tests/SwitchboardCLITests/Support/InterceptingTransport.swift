import IMClient

/// The real transport, with a hook that sees every exchange and may replace its outcome:
/// to lose an answer after the server acted, or to learn that a request was answered.
struct InterceptingTransport: HTTPTransport {
    let base: any HTTPTransport
    /// Called with each request and its answer; returns the answer to hand on, or throws
    /// the transport failure to report instead.
    let intercept: @Sendable (TransportRequest, TransportResponse) throws -> TransportResponse

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        try intercept(request, try await base.send(request))
    }
}
