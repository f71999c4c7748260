import Foundation
import HTTPServer

/// What a webhook route answers a delivery it took (stored, a duplicate, or no rule's),
/// in the sender's own terms: PagerDuty's `202 {"status":"success",…,"dedup_key":…}`,
/// Slack's `200 ok`, and for the others `200 {"status":"stored","delivery":N}`
/// (`duplicate`, `unmatched`). Every one of them is given only once the delivery is on
/// disk (or was not to be stored).
enum WebhookAnswer {
    static func response(_ verdict: WebhookInbox.Admission, format: WebhookFormat, payload: WebhookPayload) -> Response {
        switch format {
        case .pagerduty:
            var dedupKey = ""
            if case .object(let fields)? = payload.notification?.pagerDuty?.fields,
               case .string(let key)? = fields["dedup_key"] {
                dedupKey = key
            }
            return json(202, ["status": "success", "message": "Event processed", "dedup_key": dedupKey])
        case .slack:
            return Response(status: 200, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Data("ok".utf8))
        case .alertmanager, .grafana, .json:
            switch verdict {
            case .stored(let number):
                return Response(status: 200, headers: ["Content-Type": "application/json"],
                                body: Data(#"{"status":"stored","delivery":\#(number)}"#.utf8))
            case .duplicate:
                return json(200, ["status": "duplicate"])
            case .unmatched, .full:
                return json(200, ["status": "unmatched"])
            }
        }
    }

    /// PagerDuty's answer to an event it cannot read.
    static func pagerDutyInvalid(_ error: AlertPayloadError) -> Response {
        let status = error.code == .tooLarge ? 413 : 400
        let body: [String: Any] = ["status": "invalid event", "message": "Event object is invalid", "errors": [error.message]]
        let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data()
        return Response(status: status, headers: ["Content-Type": "application/json"], body: data)
    }

    private static func json(_ status: Int, _ fields: [String: String]) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return Response(status: status, headers: ["Content-Type": "application/json"], body: data)
    }
}
