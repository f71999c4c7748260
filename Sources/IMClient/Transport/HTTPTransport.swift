/// Sends one HTTP request and returns the complete response.
///
/// The seam between the client core and the network: `CurlTransport` is the real one,
/// `FakeTransport` answers from a script in tests. A response with any status, 4xx and
/// 5xx included, is a success here; only a failure to get a response throws.
public protocol HTTPTransport: Sendable {
    /// Sends `request`; throws `TransportError` when no complete response arrives.
    ///
    /// Cancelling the calling task abandons the transfer and throws `.cancelled`.
    func send(_ request: TransportRequest) async throws -> TransportResponse
}
