import Foundation
import IMClient
import IMProtocol
import Lifecycle
import SwitchboardCrypto
import Synchronization

/// Who may use the operator console: a bearer token that is the runner's metrics token,
/// or a console login a server administrator made with their username and password.
///
/// The password goes to the IM server (`POST /v1/login`, under its login throttle); the
/// runner asks whether the account administers (`GET /v1/admin/users`), logs that login
/// out again at once, and hands out a console token of its own: 256 random bits, kept
/// only as a digest, for ``lifetime``, at most ``capacity`` at a time (the oldest goes).
final class ConsoleLogins: Sendable {
    static let lifetime: Int64 = 12 * 3600 * 1000
    static let capacity = 64

    private let logins = Mutex<[[UInt8]: (username: String, expires: Int64)]>([:])
    private let metricsToken: String?
    private let serverURL: String
    private let transport: any HTTPTransport
    private let time: any TimeSource

    init(metricsToken: String?, serverURL: String, transport: any HTTPTransport, time: any TimeSource) {
        self.metricsToken = metricsToken
        self.serverURL = serverURL
        self.transport = transport
        self.time = time
    }

    /// Who a request's bearer token is: `metrics token` or the administrator's name; nil
    /// when it is neither.
    func caller(_ authorization: String?) -> String? {
        guard let given = authorization.flatMap(Self.bearer), !given.isEmpty else { return nil }
        let digest = Digest.sha256(Array(given.utf8))
        if let metricsToken, Digest.constantTimeEqual(digest, Digest.sha256(Array(metricsToken.utf8))) {
            return "metrics token"
        }
        let now = time.wallMilliseconds
        return logins.withLock { logins in
            logins = logins.filter { $0.value.expires > now }
            return logins[digest]?.username
        }
    }

    /// Logs an administrator in; throws the answer to give otherwise.
    func logIn(username: String, password: String) async throws(ConsoleError) -> String {
        let client = IMClient(serverURL: serverURL, transport: transport,
                              configuration: IMClient.Configuration(sendRetry: .never))
        do {
            try await client.login(username: username, password: password)
        } catch {
            if let api = error.api { throw ConsoleError(api) }
            throw ConsoleError(APIError(.unavailable, "the IM server cannot be reached to check the login: \(error.message)"))
        }
        let isAdministrator: Bool
        do {
            _ = try await client.adminUsers(limit: 1)
            isAdministrator = true
        } catch {
            isAdministrator = false
        }
        try? await client.logout()
        guard isAdministrator else {
            throw ConsoleError(APIError(.forbidden, "the console is for server administrators (or the runner's metrics token)"))
        }
        let token = "sbc_" + SecureRandom.base64URL(SecureRandom.bytes(32))
        let expires = time.wallMilliseconds + Self.lifetime
        logins.withLock { logins in
            if logins.count >= Self.capacity, let oldest = logins.min(by: { $0.value.expires < $1.value.expires }) {
                logins[oldest.key] = nil
            }
            logins[Digest.sha256(Array(token.utf8))] = (username.lowercased(), expires)
        }
        return token
    }

    /// Ends a console login (a metrics token cannot be ended here).
    func logOut(_ authorization: String?) {
        guard let given = authorization.flatMap(Self.bearer) else { return }
        _ = logins.withLock { $0.removeValue(forKey: Digest.sha256(Array(given.utf8))) }
    }

    static func bearer(_ value: String) -> String? {
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return String(parts[1])
    }
}

/// A refusal of the console, with the API's envelope.
struct ConsoleError: Error {
    let error: APIError
    init(_ error: APIError) { self.error = error }
}
