import Foundation
import IMClient
import Synchronization

/// A Matrix client-server API client for bots: login, `/sync`, rooms, messages,
/// redactions, membership and power levels, over the client core's libcurl transport.
///
/// One instance is one login (an access token and its device) on one homeserver; it is
/// safe to use from many tasks at once. Unencrypted rooms only: it sends and reads
/// plain events, never `m.room.encrypted` ones.
///
/// Errors are the client core's `IMClientError`: a Matrix `errcode` becomes the code
/// of its HTTP status (`M_LIMIT_EXCEEDED` is `RATE_LIMITED`, with `retry_after_ms`
/// rounded up to whole seconds in `retryAfter`), the `errcode` itself is in
/// `api.reason`. Retries go through `RetryPolicy.run`, the client core's one loop,
/// and only where the configuration's `retry` allows (off for the runner, which
/// retries in its own single layer).
public final class MatrixClient: Sendable {
    /// The transport Matrix clients use unless given another: its own libcurl thread,
    /// with a response limit that keeps a hostile homeserver from filling memory.
    public static let sharedTransport: any HTTPTransport = CurlTransport(
        configuration: CurlTransport.Configuration(maxResponseBytes: 8 << 20))

    /// Timeouts, retries and the clock of a client.
    public struct Configuration: Sendable {
        /// The limit for one ordinary call.
        public var requestTimeout: Duration
        /// The limit for connecting.
        public var connectTimeout: Duration
        /// How calls that are safe to repeat (sends with their transaction id, state
        /// reads and writes, membership changes) are retried.
        public var retry: RetryPolicy
        public var sleep: SleepFunction
        public var random: RandomSource

        public init(
            requestTimeout: Duration = .seconds(30), connectTimeout: Duration = .seconds(5),
            retry: RetryPolicy = RetryPolicy(), sleep: @escaping SleepFunction = systemSleep,
            random: @escaping RandomSource = systemRandom
        ) {
            self.requestTimeout = requestTimeout
            self.connectTimeout = connectTimeout
            self.retry = retry
            self.sleep = sleep
            self.random = random
        }
    }

    /// The homeserver's base URL without a trailing slash, e.g. `https://matrix.example.org`.
    public let homeserver: String
    public let configuration: Configuration
    let transport: any HTTPTransport
    private let current: Mutex<MatrixSession?>

    /// Creates a client for `homeserver`, logged in when `session` is given.
    public init(homeserver: String, session: MatrixSession? = nil,
                transport: any HTTPTransport = MatrixClient.sharedTransport,
                configuration: Configuration = Configuration()) {
        var url = homeserver.trimmingCharacters(in: .whitespaces)
        while url.hasSuffix("/") { url.removeLast() }
        self.homeserver = url
        self.transport = transport
        self.configuration = configuration
        current = Mutex(session)
    }

    /// The current login, nil before one.
    public var session: MatrixSession? { current.withLock { $0 } }

    /// Adopts a login obtained elsewhere.
    public func use(_ session: MatrixSession?) { current.withLock { $0 = session } }

    /// The logged-in user, or `NOT_LOGGED_IN`.
    public func currentUser() throws(IMClientError) -> MatrixUserID {
        guard let session else { throw IMClientError(.notLoggedIn, "not logged in to \(homeserver)") }
        return session.userID
    }

    /// Runs `attempt` under the configuration's retry policy.
    func retrying<T>(_ attempt: () async throws(IMClientError) -> T) async throws(IMClientError) -> T {
        try await configuration.retry.run(sleep: configuration.sleep, random: configuration.random, attempt)
    }
}

/// A login on a homeserver: who, with which access token, on which device.
public struct MatrixSession: Sendable, Hashable {
    public var userID: MatrixUserID
    public var accessToken: String
    /// The device the token belongs to; Matrix keys transaction ids by it.
    public var deviceID: String?

    public init(userID: MatrixUserID, accessToken: String, deviceID: String?) {
        self.userID = userID
        self.accessToken = accessToken
        self.deviceID = deviceID
    }
}
