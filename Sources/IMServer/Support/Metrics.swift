import Foundation
import HTTPServer
import Synchronization

/// The server's counters, rendered in the Prometheus text format at `/metrics`.
final class Metrics: Sendable {
    private struct RequestKey: Hashable {
        var method: String
        var route: String
        var status: Int
    }

    private let requests = Mutex<[RequestKey: Int]>([:])
    let messagesSent = Atomic<Int>(0)
    let eventsDelivered = Atomic<Int>(0)
    let loginFailures = Atomic<Int>(0)
    let rateLimited = Atomic<Int>(0)
    let pollsReplaced = Atomic<Int>(0)
    let pollsAnsweredFromCommits = Atomic<Int>(0)

    /// Counts an answer. Methods outside the standard ones count as `other`, so the
    /// series stay as few as the routes.
    func recordRequest(method: HTTPMethod, route: String, status: Int) {
        let key = RequestKey(method: method.metricLabel, route: route, status: status)
        requests.withLock { $0[key, default: 0] += 1 }
    }

    /// The exposition text (`promtool check metrics` passes it): the request counts, the
    /// counters above, and `samples` taken by the caller (parked polls, connections).
    func render(samples: [MetricSample]) -> String {
        var out = ""
        out += "# HELP switchboard_http_requests_total HTTP requests answered, by route and status.\n"
        out += "# TYPE switchboard_http_requests_total counter\n"
        let snapshot = requests.withLock { $0 }.sorted {
            ($0.key.route, $0.key.method, $0.key.status) < ($1.key.route, $1.key.method, $1.key.status)
        }
        for (key, count) in snapshot {
            out +=
                "switchboard_http_requests_total{method=\"\(PrometheusText.label(key.method))\",route=\"\(PrometheusText.label(key.route))\",status=\"\(key.status)\"} \(count)\n"
        }
        let counters: [MetricSample] = [
            .counter("switchboard_messages_sent_total", "Messages stored (resends with a known client_msg_id excluded).", messagesSent.load(ordering: .relaxed)),
            .counter("switchboard_events_delivered_total", "Events handed to polling clients.", eventsDelivered.load(ordering: .relaxed)),
            .counter("switchboard_login_failures_total", "Logins refused for a wrong username or password.", loginFailures.load(ordering: .relaxed)),
            .counter("switchboard_rate_limited_total", "Requests answered 429.", rateLimited.load(ordering: .relaxed)),
            .counter("switchboard_polls_replaced_total", "Parked polls ended by a newer poll of the same login (409).", pollsReplaced.load(ordering: .relaxed)),
            .counter("switchboard_polls_answered_from_commits_total", "Parked polls answered with the events of the commit that woke them, without reading the feed.", pollsAnsweredFromCommits.load(ordering: .relaxed)),
        ]
        for sample in counters + samples {
            out += "# HELP \(sample.name) \(PrometheusText.help(sample.help))\n# TYPE \(sample.name) \(sample.kind.rawValue)\n"
            out += "\(sample.name) \(sample.renderedValue)\n"
        }
        return out
    }
}

/// One value for `/metrics`: a counter (only goes up; its name ends in `_total`) or a
/// gauge, in base units (seconds, bytes), as Prometheus expects.
struct MetricSample: Sendable {
    enum Kind: String, Sendable {
        case counter, gauge
    }

    var name: String
    var help: String
    var kind: Kind
    var value: Double

    static func counter(_ name: String, _ help: String, _ value: Int) -> MetricSample {
        MetricSample(name: name, help: help, kind: .counter, value: Double(value))
    }

    /// A counter of time, given in nanoseconds and shown in seconds.
    static func counter(_ name: String, _ help: String, nanoseconds: Int) -> MetricSample {
        MetricSample(name: name, help: help, kind: .counter, value: Double(nanoseconds) / 1e9)
    }

    static func gauge(_ name: String, _ help: String, _ value: Int) -> MetricSample {
        MetricSample(name: name, help: help, kind: .gauge, value: Double(value))
    }

    /// Whole numbers without a fraction (`12`, not `12.0`); others as Swift prints them
    /// (`0.001234`, `1e-06`), which Prometheus reads.
    var renderedValue: String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
