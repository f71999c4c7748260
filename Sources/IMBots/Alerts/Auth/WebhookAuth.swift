import Foundation
import HTTPServer
import SwitchboardCrypto

/// How a webhook route checks who is calling: the secret each sender can be set up with.
///
/// ``verify(headers:body:nowMilliseconds:)`` is pure (time is passed in) and compares
/// every secret in constant time.
public enum WebhookAuth: Sendable, Hashable {
    /// `Authorization: Bearer <token>`, as Alertmanager's
    /// `http_config.authorization.credentials` (and Grafana's header credentials) send it.
    case bearer(token: String)
    /// `Authorization: Basic …`, as `http_config.basic_auth` sends it.
    case basic(username: String, password: String)
    /// Grafana's HMAC-SHA256 signature of the body, with its timestamp against replays.
    case grafanaHMAC(GrafanaSignature)

    /// Checks a request's credentials.
    /// - Parameter nowMilliseconds: the wall clock, for the signature's timestamp window.
    public func verify(headers: HTTPHeaders, body: Data, nowMilliseconds: Int64) throws(WebhookAuthError) {
        switch self {
        case .bearer(let token):
            let presented = try Self.credentials(headers, scheme: "Bearer")
            guard Digest.secretsEqual(presented, token) else {
                throw WebhookAuthError(.wrongCredentials, "the bearer token is wrong")
            }
        case .basic(let username, let password):
            let encoded = try Self.credentials(headers, scheme: "Basic")
            guard let data = Data(base64Encoded: encoded),
                  let decoded = String(data: data, encoding: .utf8),
                  let colon = decoded.firstIndex(of: ":")
            else {
                throw WebhookAuthError(.malformedCredentials, "the Basic credentials are not base64 of user:password")
            }
            // Both halves are always compared, so timing does not tell which one was wrong.
            let userMatches = Digest.secretsEqual(String(decoded[..<colon]), username)
            let passwordMatches = Digest.secretsEqual(String(decoded[decoded.index(after: colon)...]), password)
            guard userMatches && passwordMatches else {
                throw WebhookAuthError(.wrongCredentials, "the Basic user name or password is wrong")
            }
        case .grafanaHMAC(let signature):
            try signature.verify(headers: headers, body: body, nowMilliseconds: nowMilliseconds)
        }
    }

    /// Checks what the headers alone can tell, before any of the body is read: all of a
    /// bearer token or Basic credentials; that a signature (and, when required, its
    /// timestamp) is there, since checking it needs the body. A request that passes is
    /// checked in full by ``verify(headers:body:nowMilliseconds:)`` once its body is in.
    public func verifyBeforeBody(headers: HTTPHeaders, nowMilliseconds: Int64) throws(WebhookAuthError) {
        switch self {
        case .bearer, .basic:
            try verify(headers: headers, body: Data(), nowMilliseconds: nowMilliseconds)
        case .grafanaHMAC(let signature):
            try signature.verifyPresence(headers: headers)
        }
    }

    /// The credentials after `scheme` in the `Authorization` header.
    private static func credentials(_ headers: HTTPHeaders, scheme: String) throws(WebhookAuthError) -> String {
        guard let header = headers["Authorization"], !header.isEmpty else {
            throw WebhookAuthError(.missingCredentials,
                                   "the Authorization header is missing; this route expects \(scheme) credentials")
        }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == scheme.lowercased() else {
            throw WebhookAuthError(.malformedCredentials, "the Authorization header must use the \(scheme) scheme")
        }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }
}
