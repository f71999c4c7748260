import Foundation
import HTTPServer

/// One `webhooks:` entry of a bot: where it listens, what it reads and who may call it.
///
/// ``accept(headers:body:nowMilliseconds:)`` is everything the listener does before the
/// inbox: the secret first (so nobody unauthenticated gets a body parsed), then the
/// format and its bounds. Pure: time is passed in from an injected clock.
public struct WebhookRoute: Sendable {
    /// The listener path, e.g. `/hooks/alertmanager`.
    public var path: String
    /// The body format it reads.
    public var format: WebhookFormat
    /// Whether requests may name the route's path followed by one more segment, the
    /// secret (Slack's URLs).
    public var takesSecretInPath: Bool { format.takesSecretInPath }
    /// The secret callers must present.
    public var auth: WebhookAuth
    /// Bounds on one notification.
    public var limits: PayloadLimits

    /// A route; `limits` default to ``PayloadLimits/init(maxAlerts:maxLabels:maxLabelBytes:maxDepth:)``.
    public init(path: String, format: WebhookFormat, auth: WebhookAuth, limits: PayloadLimits = PayloadLimits()) {
        self.path = path
        self.format = format
        self.auth = auth
        self.limits = limits
    }

    /// Checks what can be checked before the body is read: the method and the
    /// credentials the headers carry (``WebhookAuth/verifyBeforeBody(headers:nowMilliseconds:)``).
    /// `pathSecret` is the segment of the request's path after the route's (a Slack URL's secret).
    public func admit(method: HTTPMethod, headers: HTTPHeaders, nowMilliseconds: Int64, pathSecret: String? = nil)
        throws(WebhookRejection)
    {
        guard method == .post else { throw .wrongMethod(method.rawValue) }
        do {
            try auth.verifyBeforeBody(headers: headers, nowMilliseconds: nowMilliseconds, pathSecret: pathSecret)
        } catch {
            throw .unauthorized(error)
        }
    }

    /// Checks the credentials and decodes the body; throws the answer to give otherwise.
    /// `pathSecret` is the segment of the request's path after the route's (a Slack URL's secret).
    public func accept(headers: HTTPHeaders, body: Data, nowMilliseconds: Int64, pathSecret: String? = nil)
        throws(WebhookRejection) -> WebhookPayload
    {
        do {
            try auth.verify(headers: headers, body: body, nowMilliseconds: nowMilliseconds, pathSecret: pathSecret)
        } catch {
            throw .unauthorized(error)
        }
        do {
            return try format.decode(body, limits: limits)
        } catch {
            throw .invalidPayload(error)
        }
    }
}
