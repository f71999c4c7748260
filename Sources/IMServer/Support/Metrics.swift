import Foundation
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

    func recordRequest(method: String, route: String, status: Int) {
        requests.withLock { $0[RequestKey(method: method, route: route, status: status), default: 0] += 1 }
    }

    /// The exposition text; `gauges` are sampled by the caller (parked polls, connections).
    func render(gauges: [(name: String, help: String, value: Int)]) -> String {
        var out = ""
        out += "# HELP switchboard_http_requests_total HTTP requests answered, by route and status.\n"
        out += "# TYPE switchboard_http_requests_total counter\n"
        let snapshot = requests.withLock { $0 }.sorted {
            ($0.key.route, $0.key.method, $0.key.status) < ($1.key.route, $1.key.method, $1.key.status)
        }
        for (key, count) in snapshot {
            out +=
                "switchboard_http_requests_total{method=\"\(key.method)\",route=\"\(escape(key.route))\",status=\"\(key.status)\"} \(count)\n"
        }
        let counters: [(String, String, Int)] = [
            ("switchboard_messages_sent_total", "Messages stored (resends with a known client_msg_id excluded).", messagesSent.load(ordering: .relaxed)),
            ("switchboard_events_delivered_total", "Events handed to polling clients.", eventsDelivered.load(ordering: .relaxed)),
            ("switchboard_login_failures_total", "Logins refused for a wrong username or password.", loginFailures.load(ordering: .relaxed)),
            ("switchboard_rate_limited_total", "Requests answered 429.", rateLimited.load(ordering: .relaxed)),
            ("switchboard_polls_replaced_total", "Parked polls ended by a newer poll of the same login (409).", pollsReplaced.load(ordering: .relaxed)),
            ("switchboard_polls_answered_from_commits_total", "Parked polls answered with the events of the commit that woke them, without reading the feed.", pollsAnsweredFromCommits.load(ordering: .relaxed)),
        ]
        for (name, help, value) in counters {
            out += "# HELP \(name) \(help)\n# TYPE \(name) counter\n\(name) \(value)\n"
        }
        for gauge in gauges {
            out += "# HELP \(gauge.name) \(gauge.help)\n# TYPE \(gauge.name) gauge\n\(gauge.name) \(gauge.value)\n"
        }
        return out
    }

    private func escape(_ label: String) -> String {
        label.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }
}
