import Foundation
import HTTPServer
import IMProtocol
import Synchronization

/// The durable inbox of one bot's webhook routes: a request is answered `2xx` only once
/// its payload is in the bot's journal and synced to disk, `503` with `Retry-After` when it
/// cannot be stored, and never `429` (Alertmanager drops a notification answered with any
/// 4xx and retries only on 5xx).
///
/// In order: the secret (401, before anything of the body is read), the format and its
/// bounds (400, 413), the webhook rules that fire (pure), then, in one step under the
/// journal's lock, the dedupe check of each rule against the keys it has seen and the
/// record of the delivery with its new keys: two copies of a notification arriving at
/// once (the twins of an HA pair) are stored once, and the second is answered as a
/// duplicate only after the first is on disk. Processing happens after, in the bot's
/// alert service; a runner killed after answering processes the stored delivery when it
/// starts again.
struct WebhookInbox: Sendable {
    let parts: BotParts
    let routes: ServedRoutes
    /// Wakes the alert service: a delivery was stored.
    let stored: @Sendable () -> Void

    /// Deliveries stored and not processed yet, at most; past it, 503.
    static let capacity = 1000
    /// Their bodies' bytes at most.
    static let capacityBytes = 64 << 20
    /// What `Retry-After` says when a webhook cannot be stored.
    static let retryAfter = 5

    /// What the journal step decided.
    enum Admission: Sendable {
        case stored(Int64)
        case duplicate
        case unmatched
        case full
    }

    /// The answer to give before any of the body is read, or nil to read it: 503 while
    /// the route is not served yet, 405 for another method, 401 for credentials the
    /// headers show to be wrong or missing.
    func admit(_ head: RequestHead) -> Response? {
        // The route's path: a Slack URL's secret after it is never a label or a log's.
        guard let (route, pathSecret) = routes.route(matching: head.path) else {
            return WebhookRejection.unavailable(retryAfter: Self.retryAfter).response
        }
        do {
            try route.admit(
                method: head.method, headers: head.headers, nowMilliseconds: parts.time.wallMilliseconds,
                pathSecret: pathSecret)
            return nil
        } catch {
            parts.metrics.webhook(bot: parts.name, path: route.path, error.outcome)
            return error.response(for: route.format)
        }
    }

    func receive(_ request: Request) async -> Response {
        // The route's path: a Slack URL's secret after it is never a label or a log's.
        guard let (route, pathSecret) = routes.route(matching: request.path) else {
            return WebhookRejection.unavailable(retryAfter: Self.retryAfter).response
        }
        let path = route.path
        let now = parts.time.wallMilliseconds
        let payload: WebhookPayload
        do {
            guard request.method == .post else { throw WebhookRejection.wrongMethod(request.method.rawValue) }
            payload = try route.accept(
                headers: request.headers, body: request.body, nowMilliseconds: now, pathSecret: pathSecret)
        } catch let rejection as WebhookRejection {
            parts.metrics.webhook(bot: parts.name, path: path, rejection.outcome)
            return rejection.response(for: route.format)
        } catch {
            return WebhookRejection.unavailable(retryAfter: Self.retryAfter).response
        }
        let candidates = self.candidates(for: payload, path: path, now: now)
        let body = String(decoding: request.body, as: UTF8.self)
        let admitted = parts.journal.record { state -> (JournalRecord.Change?, Admission) in
            Self.admit(candidates, into: state.alerts, path: path, format: route.format, body: body, now: now)
        }
        guard let admitted else { return refuse(path, "the bot is stopping") }
        if case .full = admitted.verdict {
            return refuse(path, "the inbox holds \(Self.capacity) webhooks (or \(Self.capacityBytes >> 20) MiB) "
                          + "not processed yet")
        }
        if case .unmatched = admitted.verdict {} else {
            do {
                try await parts.journal.waitUntilDurable(admitted.sequence)
            } catch {
                return refuse(path, error.description)
            }
        }
        let outcome: RunnerMetrics.WebhookOutcome
        switch admitted.verdict {
        case .stored:
            stored()
            outcome = .stored
        case .duplicate:
            outcome = .duplicate
        case .unmatched, .full:
            outcome = .unmatched
        }
        parts.metrics.webhook(bot: parts.name, path: path, outcome)
        return WebhookAnswer.response(admitted.verdict, format: route.format, payload: payload)
    }

    /// The webhook rules that fire for `payload`, each with its dedupe key.
    private func candidates(for payload: WebhookPayload, path: String, now: Int64) -> [AlertRules.Candidate] {
        let rules = parts.rules.now
        return AlertRules(definition: rules.definition, engine: rules.engine).candidates(for: payload, path: path, now: now)
    }

    /// The journal step: the rules whose dedupe has not seen the payload take it.
    private static func admit(_ candidates: [AlertRules.Candidate], into alerts: AlertState, path: String,
                              format: WebhookFormat, body: String, now: Int64) -> (JournalRecord.Change?, Admission) {
        let fresh = AlertRules.fresh(candidates, in: alerts, now: now)
        guard !fresh.isEmpty else { return (nil, candidates.isEmpty ? .unmatched : .duplicate) }
        let bytes = alerts.inbox.reduce(body.utf8.count) { $0 + $1.body.utf8.count }
        guard alerts.inbox.count < capacity, bytes <= capacityBytes else { return (nil, .full) }
        let delivery = WebhookDelivery(number: alerts.nextDelivery, path: path, format: format, body: body,
                                       receivedAt: now, rules: fresh.map(\.rule), marks: fresh.compactMap(\.mark))
        return (.webhook(delivery), .stored(delivery.number))
    }

    /// 503 with `Retry-After`, counted, logged and audited: the sender tries again.
    private func refuse(_ path: String, _ reason: String) -> Response {
        parts.metrics.webhook(bot: parts.name, path: path, .unavailable)
        parts.reporter.webhookRefused(path: path, reason: reason, version: parts.rules.now.definition.version)
        return WebhookRejection.unavailable(retryAfter: Self.retryAfter).response
    }
}

/// The webhook routes a bot's alert service serves now, with their secrets resolved.
final class ServedRoutes: Sendable {
    private let routes = Mutex<[String: WebhookRoute]>([:])

    func route(for path: String) -> WebhookRoute? { routes.withLock { $0[path] } }

    /// The route a request's path names: its own, or one that takes its secret as the
    /// path's last segment, with that segment.
    func route(matching path: String) -> (WebhookRoute, String?)? {
        if let route = route(for: path) { return (route, nil) }
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex,
              let route = route(for: String(path[..<slash])), route.takesSecretInPath
        else { return nil }
        return (route, String(path[path.index(after: slash)...]))
    }

    var paths: [String] { routes.withLock { Array($0.keys) } }

    func set(_ route: WebhookRoute) { routes.withLock { $0[route.path] = route } }

    func remove(_ path: String) { _ = routes.withLock { $0.removeValue(forKey: path) } }
}
