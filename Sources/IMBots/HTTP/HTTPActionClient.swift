import IMClient
import Lifecycle
import Synchronization

/// How the runner makes the requests of `http` actions: its own transport (never the
/// one that talks to the IM server), which refuses private, loopback and link-local
/// addresses unless `runner.http.allow` lists them, goes through no proxy unless
/// `runner.http.proxy` names one (never the environment's `http_proxy`, which would
/// connect past the address filter), never follows redirects, stops a response past
/// 1 MiB, and waits at most 30 s per attempt.
///
/// Server trouble (`429`, `502`, `503`, `504`) and connections that failed or broke are
/// tried again, three attempts in all: the request carries an `Idempotency-Key`, so a
/// receiver that honours it acts once.
final class HTTPActionClient: Sendable {
    /// The longest an `http` action waits for one response.
    static let maximumTimeout = Duration.seconds(30)
    /// The largest response an `http` action reads.
    static let maximumResponseBytes = 1 << 20

    /// Made at the first request: most runners have no `http` action, and a transport is a thread.
    private let made = Mutex<CurlTransport?>(nil)
    private let allow: HTTPAllowList
    private let proxy: CurlTransport.Configuration.Proxy
    private let retrier: Retrier

    init(allow: HTTPAllowList, proxy: String? = nil, time: any TimeSource) {
        self.allow = allow
        self.proxy = proxy.map { .url($0) } ?? .none
        retrier = Retrier(attempts: 3, backoff: BackoffPolicy(base: .milliseconds(500), cap: .seconds(8)), time: time)
    }

    private var transport: CurlTransport {
        made.withLock { made in
            if let made { return made }
            let allow = self.allow
            let transport = CurlTransport(configuration: .init(
                maxResponseBytes: Self.maximumResponseBytes, maxConnectionsPerHost: 16, maxTotalConnections: 64,
                maxCachedConnections: 64, connectFilter: { allow.refusal($0) }, proxy: proxy))
            made = transport
            return transport
        }
    }

    /// Sends `request` (its timeout capped); any status is a response.
    func send(_ request: TransportRequest) async throws -> TransportResponse {
        var request = request
        request.timeout = min(request.timeout, Self.maximumTimeout)
        let outcome = await retrier.run { _ -> Retrier.Attempt<Result<TransportResponse, TransportError>> in
            do {
                let response = try await transport.send(request)
                let busy = [429, 502, 503, 504].contains(response.status)
                return busy ? .retry(.success(response), after: nil) : .finished(.success(response))
            } catch let error as TransportError {
                switch error.code {
                case .cannotConnect, .timedOut, .connectionLost: return .retry(.failure(error), after: nil)
                default: return .finished(.failure(error))
                }
            } catch {
                return .finished(.failure(TransportError(code: .cancelled, message: "\(error)")))
            }
        }
        return try outcome.get()
    }

    /// Ends outstanding requests and the transport's thread.
    func shutdown() async {
        await made.withLock { $0 }?.shutdown()
    }
}
