import Foundation
import HTTPServer
import IMProtocol

/// Why the listener refused a webhook, and the one place that turns it into an HTTP
/// answer: the API's error envelope with a stable code.
///
/// Never a 429: Alertmanager drops a notification answered with any 4xx and retries only
/// on 5xx, so "not now" is always ``unavailable(retryAfter:)``.
public enum WebhookRejection: Error, Sendable, Hashable, CustomStringConvertible {
    /// Wrong or missing credentials: 401.
    case unauthorized(WebhookAuthError)
    /// A body that does not parse or exceeds a bound: 400 or 413.
    case invalidPayload(AlertPayloadError)
    /// The notification cannot be stored now (inbox full, journal failing): 503 with
    /// `Retry-After`, so the sender retries.
    case unavailable(retryAfter: Int)
    /// Not a `POST`: 405.
    case wrongMethod(String)

    /// The error the envelope carries.
    public var apiError: APIError {
        switch self {
        case .unauthorized(let error): error.apiError
        case .invalidPayload(let error): error.apiError
        case .unavailable(let seconds):
            APIError(.unavailable, "the alert could not be stored; retry in \(seconds) s", retryAfter: seconds)
        case .wrongMethod(let method):
            APIError(.methodNotAllowed, "webhooks are sent with POST, not \(method)")
        }
    }

    /// The outcome it is counted as.
    var outcome: RunnerMetrics.WebhookOutcome {
        switch self {
        case .unauthorized: .unauthorized
        case .invalidPayload, .wrongMethod: .invalid
        case .unavailable: .unavailable
        }
    }

    public var description: String { apiError.message }

    /// The HTTP response: status from the code, JSON envelope, `Retry-After` for 503.
    public var response: Response {
        let error = apiError
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        if let retryAfter = error.retryAfter { headers.set("Retry-After", String(retryAfter)) }
        let body = (try? JSONEncoder().encode(ErrorEnvelope(error: error))) ?? Data()
        return Response(status: error.code.httpStatus, headers: headers, body: body)
    }

    /// The answer on a route of `format`: PagerDuty's error shape on a `pagerduty` route
    /// (`{"status":"invalid event","message":…,"errors":[…]}`), else the envelope.
    public func response(for format: WebhookFormat) -> Response {
        guard format == .pagerduty, case .invalidPayload(let error) = self else { return response }
        return WebhookAnswer.pagerDutyInvalid(error)
    }
}
