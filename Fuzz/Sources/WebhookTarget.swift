import Foundation
import HTTPServer
import IMBots
import IMProtocol
import Templates

/// Webhook bodies as the alert bridge reads them, and what it does with them: the input
/// is a body, read in every format, optionally after credential text and a NUL byte (a
/// Grafana timestamp, Basic credentials). A notification is folded into incidents and
/// rendered; the body's text is also read as a chat command of the bridge. Real payloads
/// from Alertmanager and Grafana are seeds as they are.
///
/// Invariants: a body is accepted or refused with an error naming the field at fault;
/// checking credentials never traps, even for a sender that holds the secret; every
/// message the bridge would post fits the server's limit.
struct WebhookTarget: FuzzTarget {
    static let secret = "fuzz-secret"
    static let now: Int64 = 1_764_433_010_000

    init() {}

    func run(_ input: [UInt8]) {
        let (first, rest) = input.split(at: 0)
        let (credential, body) = input.contains(0)
            ? (String(decoding: first, as: UTF8.self), Data(rest)) : ("1764433010", Data(first))
        checkCredentials(credential, body: body)
        if let text = String(data: body, encoding: .utf8) { _ = try? AlertCommand.parse(text) }
        for format in WebhookFormat.allCases {
            read(body, as: format)
        }
        for part in MarkedParts.split(String(decoding: body, as: UTF8.self), limit: 200, maxBytes: 1_600) {
            require(part.count <= 200, "a split part of \(part.count) characters")
            require(part.utf8.count <= 1_600, "a split part of \(part.utf8.count) bytes")
        }
    }

    private func read(_ body: Data, as format: WebhookFormat) {
        let payload: WebhookPayload
        do {
            payload = try format.decode(body)
        } catch {
            require(!error.description.isEmpty, "a refused body without a reason")
            return
        }
        let value = payload.templateValue
        if let template = try? Template(source: "{{#alerts}}{{labels.alertname}} {{status}}\n{{/alerts}}{{groupKey}}") {
            _ = template.render(value, escaping: .none)
        }
        guard let notification = payload.notification else { return }
        var tracker = IncidentTracker()
        var effects = tracker.receive(notification, now: Self.now)
        effects += tracker.receive(notification, now: Self.now + 1000)
        effects += tracker.advance(now: Self.now + 3_600_000)
        for effect in effects {
            let text: String
            switch effect {
            case .post(_, _, let posted): text = posted
            case .edit(_, _, let edited): text = edited
            case .reply(_, _, let reply): text = reply
            }
            require(text.count <= Limits.messageTextLength.upperBound, "an incident message of \(text.count) characters")
        }
    }

    /// Credentials made from fuzzed text: a Grafana timestamp signed with the route's own
    /// secret (so the checks after the signature are reached), and Basic credentials.
    private func checkCredentials(_ credential: String, body: Data) {
        let grafana = GrafanaSignature(secret: Self.secret)
        var headers = HTTPHeaders()
        let timestamp = Int64(credential.trimmingCharacters(in: .whitespaces))
        headers.add(GrafanaSignature.defaultSignatureHeader, grafana.signature(body: body, timestamp: timestamp))
        headers.add(GrafanaSignature.defaultTimestampHeader, credential)
        _ = try? WebhookAuth.grafanaHMAC(grafana).verify(headers: headers, body: body, nowMilliseconds: Self.now)
        var basic = HTTPHeaders()
        basic.add("Authorization", "Basic \(credential)")
        _ = try? WebhookAuth.basic(username: "am", password: Self.secret).verify(headers: basic, body: body, nowMilliseconds: Self.now)
    }
}
