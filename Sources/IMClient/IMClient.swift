import Foundation
import IMProtocol
import Synchronization

/// The client core: every call of the Switchboard HTTP API, the live event stream, and
/// the login state, for any Swift program (the terminal client, the bot runner, scripts).
///
/// One instance is one login on one server. It is safe to use from many tasks at once;
/// `register`, `login` and `changePassword` replace the token for every later call.
public final class IMClient: Sendable {
    /// The transport every client uses unless given another: one libcurl thread per process.
    public static let sharedTransport: any HTTPTransport = CurlTransport()

    /// Timeouts, retries and the clock of a client.
    public struct Configuration: Sendable {
        /// The limit for one ordinary API call.
        public var requestTimeout: Duration
        /// The limit for connecting to the server.
        public var connectTimeout: Duration
        /// How sends are retried (they carry a `client_msg_id`, so a retry never doubles).
        public var sendRetry: RetryPolicy
        /// How the client waits between retries.
        public var sleep: SleepFunction
        /// The random numbers behind backoff jitter.
        public var random: RandomSource

        /// Creates a configuration; the defaults suit people and bots alike.
        public init(
            requestTimeout: Duration = .seconds(30), connectTimeout: Duration = .seconds(5),
            sendRetry: RetryPolicy = RetryPolicy(), sleep: @escaping SleepFunction = systemSleep,
            random: @escaping RandomSource = systemRandom
        ) {
            self.requestTimeout = requestTimeout
            self.connectTimeout = connectTimeout
            self.sendRetry = sendRetry
            self.sleep = sleep
            self.random = random
        }
    }

    private struct State {
        var token: String?
        var user: User?
        /// Calls under way that will replace the token (login, register, password change).
        var loginChanges = 0
        var settledWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// The server's base URL without a trailing slash, e.g. `http://127.0.0.1:8080`.
    public let serverURL: String
    /// The device name sent with `login` and `register` unless a call gives its own; a new
    /// login with the same device name ends the earlier one.
    public let device: String?
    /// Timeouts, retries and the clock this client was created with.
    public let configuration: Configuration
    let transport: any HTTPTransport
    private let state: Mutex<State>

    /// Creates a client for the server at `serverURL`, logged in when `token` is given.
    public init(
        serverURL: String, transport: any HTTPTransport = IMClient.sharedTransport, token: String? = nil,
        device: String? = nil, configuration: Configuration = Configuration()
    ) {
        var url = serverURL.trimmingCharacters(in: .whitespaces)
        while url.hasSuffix("/") { url.removeLast() }
        self.serverURL = url
        self.transport = transport
        self.device = device
        self.configuration = configuration
        self.state = Mutex(State(token: token, user: nil))
    }

    /// The bearer token of the current login, nil when logged out.
    public var token: String? { state.withLock { $0.token } }

    /// The account of the current login, once known (after `register`, `login` or `me`).
    public var currentUser: User? { state.withLock { $0.user } }

    /// Adopts a login obtained elsewhere (e.g. a token saved in the `ProfileStore`).
    public func use(token: String?, user: User? = nil) {
        state.withLock {
            $0.token = token
            $0.user = user
        }
    }

    func adopt(_ auth: AuthResponse) {
        use(token: auth.token, user: auth.user)
    }

    func remember(_ user: User) {
        state.withLock { state in
            if state.user == nil || state.user?.id == user.id { state.user = user }
        }
    }

    func forgetLogin() { use(token: nil, user: nil) }

    /// Runs `call`, which replaces the token, so that the event stream can tell the end of
    /// the old login (which the server announces before it answers `call`) from an end it
    /// must report.
    func replacingLogin<T>(_ call: () async throws(IMClientError) -> T) async throws(IMClientError) -> T {
        state.withLock { $0.loginChanges += 1 }
        defer {
            let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.loginChanges -= 1
                guard state.loginChanges == 0 else { return [] }
                defer { state.settledWaiters = [] }
                return state.settledWaiters
            }
            for waiter in waiters { waiter.resume() }
        }
        return try await call()
    }

    /// Returns once no call that replaces the token is under way.
    func loginSettled() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let settled = state.withLock { state -> Bool in
                if state.loginChanges == 0 { return true }
                state.settledWaiters.append(continuation)
                return false
            }
            if settled { continuation.resume() }
        }
    }
}
