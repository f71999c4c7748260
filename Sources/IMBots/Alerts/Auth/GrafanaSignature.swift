import Foundation
import HTTPServer
import Lifecycle
import SwitchboardCrypto

/// Grafana's webhook HMAC: the contact point's `hmacConfig` signs each request with
/// HMAC-SHA256 under a shared secret and sends the lower-case hex digest in a header.
///
/// With a timestamp header configured, Grafana puts the Unix time in seconds in it and
/// signs `"<timestamp>:<body>"` instead of the body alone; the timestamp must then lie
/// within ``window`` of now, so a captured request cannot be replayed later. Grafana
/// sends no timestamp unless its contact point names the header, so ``timestampHeader``
/// is required by default: set it in Grafana to the same name.
public struct GrafanaSignature: Sendable, Hashable {
    /// Grafana's default signature header.
    public static let defaultSignatureHeader = "X-Grafana-Alert-Signature"
    /// The timestamp header name this bridge's documentation tells users to configure.
    public static let defaultTimestampHeader = "X-Grafana-Alert-Timestamp"

    /// The shared HMAC secret of the contact point.
    public var secret: String
    /// The header carrying the hex signature.
    public var signatureHeader: String
    /// The header carrying the signed timestamp; nil accepts unsigned-time requests
    /// (no replay protection), which only a route that says so explicitly should do.
    public var timestampHeader: String?
    /// How far the timestamp may be from now, either way (clock skew included).
    public var window: Duration

    /// Grafana's defaults and a 5-minute window unless told otherwise.
    public init(secret: String, signatureHeader: String = GrafanaSignature.defaultSignatureHeader,
                timestampHeader: String? = GrafanaSignature.defaultTimestampHeader,
                window: Duration = .seconds(300)) {
        self.secret = secret
        self.signatureHeader = signatureHeader
        self.timestampHeader = timestampHeader
        self.window = window
    }

    /// The hex signature Grafana sends for `body` at `timestamp` (Unix seconds); nil
    /// `timestamp` signs the body alone.
    public func signature(body: Data, timestamp: Int64?) -> String {
        var message = Data()
        if let timestamp { message.append(contentsOf: Array("\(timestamp):".utf8)) }
        message.append(body)
        return Digest.hex(Digest.hmacSHA256(key: Array(secret.utf8), message: message))
    }

    /// Checks that a request carries a signature, and the timestamp when one is required,
    /// well formed: what can be known before its body is read.
    public func verifyPresence(headers: HTTPHeaders) throws(WebhookAuthError) {
        _ = try presented(headers)
    }

    /// The signature and the timestamp a request carries, checked for form.
    private func presented(_ headers: HTTPHeaders) throws(WebhookAuthError) -> (signature: String, timestamp: Int64?) {
        guard let presented = headers[signatureHeader]?.trimmingCharacters(in: .whitespaces), !presented.isEmpty else {
            throw WebhookAuthError(.missingCredentials, "the \(signatureHeader) signature header is missing")
        }
        guard let timestampHeader else { return (presented, nil) }
        guard let text = headers[timestampHeader]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else {
            throw WebhookAuthError(.missingCredentials,
                                   "the \(timestampHeader) timestamp header is missing; set it as the "
                                   + "contact point's HMAC timestamp header")
        }
        guard let seconds = Int64(text), seconds > 0 else {
            throw WebhookAuthError(.malformedCredentials, "the \(timestampHeader) header must be Unix seconds")
        }
        return (presented, seconds)
    }

    /// Checks the signature (and the timestamp's window) of a request.
    public func verify(headers: HTTPHeaders, body: Data, nowMilliseconds: Int64) throws(WebhookAuthError) {
        let (presented, timestamp) = try presented(headers)
        // The signature is checked before the time, so an unsigned request learns nothing
        // about the window.
        let expected = signature(body: body, timestamp: timestamp)
        guard Digest.secretsEqual(presented.lowercased(), expected) else {
            throw WebhookAuthError(.wrongCredentials, "the \(signatureHeader) signature does not match the body")
        }
        if let timestamp {
            // A sender holding the secret may still sign any number: seconds past
            // Int64.max / 1000 must count as far off, not overflow.
            let (sentMilliseconds, tooLarge) = timestamp.multipliedReportingOverflow(by: 1000)
            let (difference, tooFar) = nowMilliseconds.subtractingReportingOverflow(sentMilliseconds)
            let skew = tooLarge || tooFar ? UInt64.max : difference.magnitude
            let allowed = UInt64(max(0, min(window.seconds * 1000, 1e18)))
            guard skew <= allowed else {
                throw WebhookAuthError(.staleTimestamp,
                                       "the signed timestamp is \(skew / 1000) s from this server's clock; "
                                       + "at most \(allowed / 1000) s is accepted (a replay, or a clock out of sync)")
            }
        }
    }
}
