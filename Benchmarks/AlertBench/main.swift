// AlertBench: the alert bridge end to end. A release `switchboard serve` (durability as
// asked, full by default) and a release `switchboard run` with one alert bot, as separate
// processes; the benchmark posts Alertmanager webhooks at a fixed rate, each a new alert
// group, and a member of the group the bot posts into long-polls for the messages.
//
// Latency is from the start of the webhook's POST to its living message reaching the
// member's parked poll: the inbox's journal fsync before the 200, the desk, the bot's
// durable send, the woken poll. Also the POST's own answer time (the inbox's fsync), and
// alerts per second over the run. Prints a Markdown table for BENCHMARKS.md.
//
//   .build/release/AlertBench [--rate 100] [--seconds 10] [--durability full|normal]
//                             [--binary .build/release/switchboard]
import BenchSupport
import Foundation
import IMClient
import IMProtocol
import Synchronization

let arguments = BenchArguments(known: ["rate", "seconds", "durability", "binary"])
let rate = arguments.int("rate", 100)
let seconds = arguments.int("seconds", 10)
let durability = arguments.string("durability", "full")
let binary = arguments.string("binary", ".build/release/switchboard")
let token = "alertbench-token"

/// When each alert was posted, answered and seen.
final class Timings: Sendable {
    let posted = Mutex<[Int: ContinuousClock.Instant]>([:])
    let answered = Mutex<[Double]>([])
    let delivered = Mutex<[Double]>([])
    let failures = Mutex(0)
    /// The answers that were not 200, by status (0: no answer).
    let refusals = Mutex<[Int: Int]>([:])

    func post(_ index: Int) { posted.withLock { $0[index] = .now } }

    func answer(_ index: Int, status: Int) {
        let now = ContinuousClock.now
        guard status == 200, let start = posted.withLock({ $0[index] }) else {
            failures.withLock { $0 += 1 }
            refusals.withLock { $0[status, default: 0] += 1 }
            return
        }
        answered.withLock { $0.append(Stats.milliseconds(start, now)) }
    }

    func seen(_ index: Int) {
        let now = ContinuousClock.now
        guard let start = posted.withLock({ $0[index] }) else { return }
        delivered.withLock { $0.append(Stats.milliseconds(start, now)) }
    }
}

/// An Alertmanager notification of a new group `Bench<index>`.
func notification(_ index: Int) -> Data {
    let body: [String: Any] = [
        "version": "4", "status": "firing", "receiver": "bench", "groupKey": "{}:{alertname=\"Bench\(index)\"}",
        "groupLabels": ["alertname": "Bench\(index)"], "commonLabels": ["alertname": "Bench\(index)", "severity": "critical"],
        "commonAnnotations": [:] as [String: String], "externalURL": "http://alertmanager.example", "truncatedAlerts": 0,
        "alerts": [[
            "status": "firing", "labels": ["alertname": "Bench\(index)", "instance": "db-\(index % 50)", "severity": "critical"],
            "annotations": ["summary": "disk full"], "startsAt": "2026-01-05T09:00:00Z", "endsAt": "0001-01-01T00:00:00Z",
            "generatorURL": "http://prometheus.example", "fingerprint": "fp\(index)",
        ]],
    ]
    return (try? JSONSerialization.data(withJSONObject: body)) ?? Data()
}

let transport = CurlTransport(configuration: .init(maxCachedConnections: 1000))
let server = try await BenchServer(binary: binary, durability: durability, transport: transport)
defer { server.stop() }

// The bot's account, a member who made the group and invited the bot, and the runner.
try await server.createBots("alerts", count: 1)
let member = try await server.register("member", count: 1)[0]
_ = try await server.call("POST", "/v1/groups", token: member, body: Data(#"{"name":"oncall"}"#.utf8))
_ = try await server.call("POST", "/v1/groups/oncall/invites", token: member, body: Data(#"{"user":"alerts0"}"#.utf8))
let folder = NSTemporaryDirectory() + "switchboard-alertbench-\(UUID().uuidString)"
try FileManager.default.createDirectory(atPath: folder + "/bots", withIntermediateDirectories: true)
try """
    bot: alerts
    account: { username: alerts0, password: bench-password }
    join: ["group:oncall"]
    limits: { per_conversation: 5000/s, per_group: 5000/s, total: 5000/s, queue: 10000 }
    webhooks:
      - { path: /hooks/alertmanager, format: alertmanager, secret: \(token) }
    rules:
      - name: critical
        when: { webhook: /hooks/alertmanager }
        do: [ { incident: { to: "group:oncall", flap_hold: 0s } } ]
    """.write(toFile: folder + "/bots/alerts.yaml", atomically: true, encoding: .utf8)
let (runner, runnerURL) = try await BenchRunner.start(binary, server: server.url, folder: folder, bots: 1,
                                                      transport: transport)
defer { runner.stop() }

print("Machine: \(Machine.describe()); load average \(Machine.loadAverage()) at the start. Server and runner: "
      + "release builds, separate processes, loopback; server durability \(durability), the inbox's journal "
      + "synced before every 200.")
print("")
print("| measurement | result |")
print("|---|---|")

let timings = Timings()
let start = try server.decode(EventBatch.self, try await server.call("GET", "/v1/events", token: member)).cursor
let poller = Task {
    var cursor = start
    while !Task.isCancelled {
        let batch = try server.decode(EventBatch.self, try await server.call(
            "GET", "/v1/events?cursor=\(cursor)&timeout=30&limit=1000", token: member))
        cursor = batch.cursor
        for event in batch.events where event.type == .message && event.message?.sender == "alerts0" {
            guard let text = event.message?.text, text.hasPrefix("🔥 FIRING: Bench"),
                  let index = Int(text.dropFirst("🔥 FIRING: Bench".count).prefix { $0.isNumber }) else { continue }
            timings.seen(index)
        }
    }
}
try await Concurrently.waitUntil { (try? await server.parkedPolls()) ?? 0 >= 2 }

let total = rate * seconds
let cpuBefore = runner.cpuSeconds
let started = ContinuousClock.now
try await withThrowingTaskGroup(of: Void.self) { group in
    for index in 0..<total {
        try await Task.sleep(until: started + .microseconds(Int64(index) * 1_000_000 / Int64(rate)), clock: .continuous)
        group.addTask {
            timings.post(index)
            let answer = try? await transport.send(TransportRequest(
                method: "POST", url: runnerURL + "/hooks/alertmanager",
                headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
                body: notification(index), timeout: .seconds(60)))
            timings.answer(index, status: answer?.status ?? 0)
        }
    }
    try await group.waitForAll()
}
try await Concurrently.waitUntil(seconds: 300) { timings.delivered.withLock { $0.count } >= total - timings.failures.withLock { $0 } }
let elapsed = Stats.milliseconds(started, .now) / 1000
poller.cancel()

let answered = timings.answered.withLock { $0 }.sorted()
let delivered = timings.delivered.withLock { $0 }.sorted()
print("| \(rate) webhooks/s for \(seconds) s, each a new alert group: webhook → living message at a member's poll "
      + "| p50 \(Stats.ms(Stats.percentile(delivered, 0.5))), p99 \(Stats.ms(Stats.percentile(delivered, 0.99))) "
      + "(\(delivered.count) messages) |")
print("| webhook answered 200 (stored and synced) | p50 \(Stats.ms(Stats.percentile(answered, 0.5))), "
      + "p99 \(Stats.ms(Stats.percentile(answered, 0.99))); \(timings.failures.withLock { $0 }) not 200"
      + timings.refusals.withLock { $0 }.sorted { $0.key < $1.key }.map { " (\($0.value)× \($0.key == 0 ? "no answer" : String($0.key)))" }
          .joined() + " |")
print("| alerts delivered per second over the run | \(Int(Double(delivered.count) / elapsed)) |")
print("| runner CPU per alert | \(String(format: "%.0f µs", (runner.cpuSeconds - cpuBefore) / Double(max(1, delivered.count)) * 1e6)) |")
print("| runner RSS after the run | \(runner.rssKiB / 1024) MiB |")
