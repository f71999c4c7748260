/// The HTTP transport of the client core: libcurl's multi interface on one dedicated thread.
///
/// Any number of concurrent requests (a bot process may park a thousand long-polls) share
/// that one thread, and connections are kept alive and reused across requests to the same
/// server. Timeouts are millisecond-precise. Create one per process (or per server) and
/// share it; requests still outstanding when it is shut down or released end with `.cancelled`.
///
/// Redirects are not followed (a 3xx is a response). By default libcurl honours the
/// `http_proxy`, `https_proxy` and `no_proxy` environment variables; a transport whose
/// ``Configuration/proxy`` says otherwise does not.
public final class CurlTransport: HTTPTransport {
    /// The settings this transport was created with.
    public let configuration: Configuration
    private let loop: CurlEventLoop

    /// Starts the transport's thread; an invalid configuration makes every `send` throw.
    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
        loop = CurlEventLoop(configuration: configuration)
    }

    deinit {
        loop.requestStop()
    }

    /// Sends `request` and waits for the whole response without blocking a thread.
    ///
    /// Throws `TransportError`; every HTTP status, 4xx and 5xx included, is a response.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        if let error = loop.startupError { throw error }
        let transfer = try CurlTransfer(request: request, configuration: configuration)
        let loop = self.loop
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                transfer.start(continuation, on: loop)
            }
        } onCancel: {
            transfer.requestCancel(on: loop)
        }
    }

    /// Ends outstanding requests with `.cancelled`, closes connections and stops the thread.
    ///
    /// Returns once the thread is done; later requests throw `.cancelled` at once.
    public func shutdown() async {
        await loop.shutdown()
    }

    /// Threads this transport has started: always 1 (0 if it could not start).
    var threadsStarted: Int { loop.threadsStarted.load(ordering: .relaxed) }
}
