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
    /// PagerDuty's `routing_key`, in the event itself: the body's top-level object is
    /// parsed for it (bounded by the route's body limit), nothing else of it is read.
    case routingKey(String)
    /// A Slack webhook's secret, the last segment of its URL (`/hooks/slack/<secret>`), as
    /// Slack's own URLs carry theirs; or as a bearer token.
    case urlSecret(String)

    /// Checks a request's credentials.
    /// - Parameters:
    ///   - nowMilliseconds: the wall clock, for the signature's timestamp window.
    ///   - pathSecret: the segment of the request's path after the route's, if any.
    public func verify(headers: HTTPHeaders, body: Data, nowMilliseconds: Int64, pathSecret: String? = nil)
        throws(WebhookAuthError)
    {
        switch self {
        case .routingKey(let key):
            let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
            guard let presented = object?["routing_key"] as? String, !presented.isEmpty else {
                throw WebhookAuthError(.missingCredentials, "routing_key is missing: this route expects the route's secret as its routing key")
            }
            guard Digest.secretsEqual(presented, key) else {
                throw WebhookAuthError(.wrongCredentials, "the routing_key is wrong")
            }
        case .urlSecret(let secret):
            if let pathSecret {
                guard Digest.secretsEqual(pathSecret, secret) else {
                    throw WebhookAuthError(.wrongCredentials, "the secret in the URL is wrong")
                }
            } else {
                guard headers["Authorization"] != nil else {
                    throw WebhookAuthError(.missingCredentials,
                                           "the secret is missing: post to this route's path followed by /<secret>")
                }
                try WebhookAuth.bearer(token: secret).verify(headers: headers, body: body, nowMilliseconds: nowMilliseconds)
            }
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
    /// A Slack route's secret (in the path, or a bearer token) is checked in full too; a
    /// PagerDuty routing key is in the body, so nothing is checked before it.
    public func verifyBeforeBody(headers: HTTPHeaders, nowMilliseconds: Int64, pathSecret: String? = nil)
        throws(WebhookAuthError)
    {
        switch self {
        case .bearer, .basic, .urlSecret:
            try verify(headers: headers, body: Data(), nowMilliseconds: nowMilliseconds, pathSecret: pathSecret)
        case .grafanaHMAC(let signature):
            try signature.verifyPresence(headers: headers)
        case .routingKey:
            break
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

extension WebhookAuth {
    /// A plain `secret:` in the format's usual scheme: Grafana's HMAC signature,
    /// PagerDuty's routing key, a Slack URL's last segment, else a bearer token.
    public static func usual(for format: WebhookFormat, secret: String) -> WebhookAuth {
        switch format {
        case .grafana: .grafanaHMAC(GrafanaSignature(secret: secret))
        case .pagerduty: .routingKey(secret)
        case .slack: .urlSecret(secret)
        case .alertmanager, .json: .bearer(token: secret)
        }
    }
}
