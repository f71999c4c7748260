import BenchSupport
import Foundation
import IMStore
import PostgresTestSupport

// Cross-node wake-ups on PostgreSQL: how soon a commit on one session reaches a
// LISTENing session (another node), idle and under a write load, against a batched
// notifier and polling; and what each costs the writers. Runs on a private durable
// cluster (fsync and synchronous commit on). Build with
// `swift build -c release --product NotifyBench`, run `.build/release/NotifyBench`;
// options: --samples N (idle), --seconds N, --writers N, --rate N (commits/s in all, 0 =
// as fast as they can), --poll-ms N, --only idle,notify,none,batched,poll (in that order).

let arguments = BenchArguments(known: ["samples", "seconds", "writers", "poll-ms", "rate", "only"])
let samples = arguments.int("samples", 2000)
let seconds = arguments.int("seconds", 5)
let writers = arguments.int("writers", 8)
let pollMilliseconds = arguments.int("poll-ms", 1)
let rate = arguments.string("rate", "0") == "0" ? 0 : arguments.int("rate", 0)
// In the order given, so runs can alternate.
let only = arguments.string("only", "idle,notify,none,batched,poll").split(separator: ",").map(String.init)

do {
    let cluster = try await PostgresTestCluster.start(durable: true)
    let database = try await cluster.createDatabase()
    let configuration = PostgresConfiguration(url: cluster.url(database: database), applicationName: "notify-bench")
    let setup = PostgresPool(configuration: PostgresPool.Configuration(connection: configuration, maxConnections: 1))
    try await setup.withConnection {
        try $0.executeScript("CREATE TABLE feed (id bigserial PRIMARY KEY, key text NOT NULL)")
    }
    let version = try await setup.withConnection { $0.serverVersion }
    await setup.close()
    let bench = WakeBench(
        cluster: cluster, configuration: configuration, writers: writers, seconds: Double(seconds),
        pollInterval: .milliseconds(pollMilliseconds), rate: rate)
    print("\(Machine.describe()); PostgreSQL \(version), local, fsync on; load average \(Machine.loadAverage())")
    print()
    if only.contains("idle") {
        let latencies = try await bench.idle(samples: samples)
        print("idle, one notification at a time (\(latencies.count)): p50 \(Stats.ms(Stats.percentile(latencies, 0.5))), "
              + "p99 \(Stats.ms(Stats.percentile(latencies, 0.99))), max \(Stats.ms(latencies.last ?? .nan))")
        print()
    }
    print("| wake-up | writers, rate | commits/s | woken after tx start p50 / p99 ms | after commit returned p50 / p99 ms | tx p50 / p99 ms | never woken | server CPU µs/commit | bench CPU µs/commit |")
    print("|---|---|---|---|---|---|---|---|---|")
    for mechanism in only.compactMap(WakeMechanism.init(rawValue:)) {
        let (summary, serverCPU, benchCPU) = try await bench.load(mechanism)
        let name = mechanism == .poll ? "poll every \(pollMilliseconds) ms" : mechanism.rawValue
        let perCommit = { (cpu: Double) in String(format: "%.0f", cpu * 1e6 / Double(max(1, summary.commits))) }
        print("| \(name) | \(writers), \(rate == 0 ? "max" : "\(rate)/s") | \(Int(Double(summary.commits) / summary.seconds)) | "
              + "\(WakeSummary.p50p99(summary.fromStart)) | \(WakeSummary.p50p99(summary.afterCommit)) | "
              + "\(WakeSummary.p50p99(summary.transaction)) | \(mechanism == .none ? "–" : String(summary.missed)) | "
              + "\(perCommit(serverCPU)) | \(perCommit(benchCPU)) |")
    }
} catch {
    FileHandle.standardError.write(Data("NotifyBench: \(error)\n".utf8))
    exit(1)
}
