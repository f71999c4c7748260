// BotBench: the bot runner end to end. A release `switchboard serve` and a release
// `switchboard run` as separate processes:
//  1. an auto-responder answering 50 users who send at a fixed total rate: reply latency
//     (send → the reply reaching the user's parked poll) and replies per second;
//  2. the runner's memory with 100 bots logged in and parked.
// Prints a Markdown table for BENCHMARKS.md.
//
//   .build/release/BotBench [--users 50] [--rate 500] [--seconds 10] [--bots 100] [--durability full|normal]
//                           [--binary .build/release/switchboard] [--runner-binary PATH]
// `--runner-binary` runs the bots with another build's `switchboard` against this one's
// server: a before/after of the runner alone.
import BenchSupport
import Foundation
import IMClient
import IMProtocol
import Synchronization

/// Command-line settings.
struct Options {
    var users: Int
    var rate: Int
    var seconds: Int
    var bots: Int
    var binary: String
    /// The `switchboard` that runs the bots (default: `binary`).
    var runnerBinary: String
    var durability: String

    static func parse() -> Options {
        let arguments = BenchArguments(
            known: ["users", "rate", "seconds", "bots", "binary", "runner-binary", "durability"])
        let binary = arguments.string("binary", ".build/release/switchboard")
        return Options(
            users: arguments.int("users", 50), rate: arguments.int("rate", 500), seconds: arguments.int("seconds", 10),
            bots: arguments.int("bots", 100), binary: binary, runnerBinary: arguments.string("runner-binary", binary),
            durability: arguments.string("durability", "full"))
    }
}

/// A bot file for bot number `index` (an auto-responder with budgets far above the load).
/// The accounts are made beforehand (`BenchServer.createBots`), so every runner version
/// only logs in, whatever it needs to create accounts.
func botFile(_ index: Int) -> String {
    """
    bot: bot\(index)
    account: { username: bot\(index), password: bench-password }
    limits: { per_conversation: 1000/s, per_group: 1000/s, total: 5000/s }
    loop_guard: { max_replies_per_minute: 100000 }
    rules:
      - name: answer
        when: { direct: true }
        do: [ { reply: "re: {{message.text}}" } ]
    """
}

/// Starts `switchboard run` on the bots folder; waits until `count` bots are connected.
func startRunner(_ binary: String, server: BenchServer, bots: Int, transport: CurlTransport) async throws -> (ChildProcess, String) {
    let folder = NSTemporaryDirectory() + "switchboard-botbench-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: folder + "/bots", withIntermediateDirectories: true)
    try await server.createBots("bot", count: bots)
    for index in 0..<bots {
        try botFile(index).write(toFile: folder + "/bots/bot\(index).yaml", atomically: true, encoding: .utf8)
    }
    return try await BenchRunner.start(binary, server: server.url, folder: folder, bots: bots, transport: transport)
}

/// When each message was sent, and when its reply arrived; and, on the wall clock the
/// server stamps messages with (milliseconds), the three legs of the round trip.
final class Latencies: Sendable {
    struct Sent {
        var at: ContinuousClock.Instant
        var wall: Int64
        /// The server's stamp on the user's message, once its send is answered.
        var stamped: Int64?
    }

    let sent = Mutex<[String: Sent]>([:])
    let samples = Mutex<[Double]>([])
    /// user → server stamp; server stamp → the bot's reply stamped; reply stamp → arrival.
    let legs = Mutex<[(Double, Double, Double)]>([])

    func sending(_ text: String) { sent.withLock { $0[text] = Sent(at: .now, wall: Self.wallMilliseconds()) } }
    func stamped(_ text: String, _ at: Timestamp) { sent.withLock { $0[text]?.stamped = at.milliseconds } }
    func replied(_ text: String, stamped replyAt: Timestamp) {
        let now = ContinuousClock.now
        let wall = Self.wallMilliseconds()
        guard let start = sent.withLock({ $0[text] }) else { return }
        samples.withLock { $0.append(Stats.milliseconds(start.at, now)) }
        if let stamped = start.stamped {
            legs.withLock {
                $0.append((Double(stamped - start.wall), Double(replyAt.milliseconds - stamped),
                           Double(wall - replyAt.milliseconds)))
            }
        }
    }

    var count: Int { samples.withLock { $0.count } }

    static func wallMilliseconds() -> Int64 { Timestamp.now().milliseconds }
}

let options = Options.parse()
let transport = CurlTransport(configuration: .init(maxCachedConnections: 30_000))
let server = try await BenchServer(binary: options.binary, durability: options.durability, transport: transport)
defer { server.stop() }
print("Machine: \(Machine.describe()). Server and runner: release builds, separate processes, loopback; "
      + "durability \(options.durability).")
print("Server: \(options.binary); runner: \(options.runnerBinary).")
print("")
print("| measurement | result |")
print("|---|---|")

// 1. Auto-responder under load.
do {
    let (runner, _) = try await startRunner(options.runnerBinary, server: server, bots: 1, transport: transport)
    defer { runner.stop() }
    let tokens = try await server.register("user", count: options.users)
    let latencies = Latencies()
    let cursors = try await Concurrently.map(tokens) { token in
        try server.decode(EventBatch.self, try await server.call("GET", "/v1/events", token: token)).cursor
    }
    let pollers = zip(tokens, cursors).map { token, start in
        Task {
            var cursor = start
            while !Task.isCancelled {
                let batch = try server.decode(
                    EventBatch.self, try await server.call("GET", "/v1/events?cursor=\(cursor)&timeout=30&limit=1000", token: token))
                cursor = batch.cursor
                for event in batch.events where event.message?.sender == "bot0" {
                    if let message = event.message, message.text.hasPrefix("re: ") {
                        latencies.replied(String(message.text.dropFirst(4)), stamped: message.createdAt)
                    }
                }
            }
        }
    }
    try await Concurrently.waitUntil { (try? await server.parkedPolls()) ?? 0 >= options.users }
    let cpuBefore = runner.cpuSeconds
    let total = options.rate * options.seconds
    let started = ContinuousClock.now
    let senders = Task {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<total {
                let due = started + .microseconds(Int64(index) * 1_000_000 / Int64(options.rate))
                try await Task.sleep(until: due, clock: .continuous)
                let token = tokens[index % tokens.count]
                let text = "m\(index)"
                group.addTask {
                    latencies.sending(text)
                    let answer = try await server.call(
                        "POST", "/v1/conversations/user:bot0/messages", token: token,
                        body: try WireJSON.encoder().encode(SendMessageRequest(text: text)))
                    latencies.stamped(text, try server.decode(Message.self, answer).createdAt)
                }
            }
            try await group.waitForAll()
        }
    }
    try await senders.value
    try await Concurrently.waitUntil(seconds: 120) { latencies.count >= total }
    let elapsed = Stats.milliseconds(started, .now) / 1000
    for poller in pollers { poller.cancel() }
    let samples = latencies.samples.withLock { $0 }.sorted()
    print("| auto-responder, \(options.users) users sending \(options.rate) msgs/s for \(options.seconds) s: reply latency | p50 \(Stats.ms(Stats.percentile(samples, 0.5))), p99 \(Stats.ms(Stats.percentile(samples, 0.99))) (\(samples.count) replies) |")
    print("| replies per second over the run | \(Int(Double(samples.count) / elapsed)) |")
    let legs = latencies.legs.withLock { $0 }
    if !legs.isEmpty {
        func mean(_ values: [Double]) -> String { String(format: "%.2f ms", values.reduce(0, +) / Double(values.count)) }
        print("| ↳ mean of the legs (server's millisecond stamps): send → message stamped; → reply stamped; → reply arrived "
              + "| \(mean(legs.map(\.0))); \(mean(legs.map(\.1))); \(mean(legs.map(\.2))) |")
    }
    print("| runner CPU per reply | \(String(format: "%.0f µs", (runner.cpuSeconds - cpuBefore) / Double(max(1, samples.count)) * 1e6)) |")
    print("| runner RSS after the run | \(runner.rssKiB / 1024) MiB |")
}

// 2. Memory of one runner with many bots.
do {
    let (runner, _) = try await startRunner(options.runnerBinary, server: server, bots: options.bots, transport: transport)
    defer { runner.stop() }
    try await Task.sleep(for: .seconds(2))
    print("| one runner with \(options.bots) bots logged in and parked: RSS | \(runner.rssKiB / 1024) MiB (\(runner.rssKiB / options.bots) KiB per bot) |")
}
