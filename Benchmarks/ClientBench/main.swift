// ClientBench: one process holding many IMClient event streams (one login each) against a
// release `switchboard serve` child process. Measures this process's memory and CPU
// while the streams sit parked, and the time until every stream has a message sent to a
// group they all belong to. Prints a Markdown table for BENCHMARKS.md.
//
//   .build/release/ClientBench [--streams 1000] [--idle 10] [--binary PATH]
import BenchSupport
import Foundation
import IMClient
import IMProtocol
import Synchronization

let arguments = BenchArguments(known: ["streams", "idle", "binary"])
let streams = arguments.int("streams", 1000)
let idleSeconds = arguments.int("idle", 10)
let binary = arguments.string("binary", ".build/release/switchboard")

let transport = CurlTransport(configuration: .init(maxCachedConnections: 30_000))
let server = try await BenchServer(binary: binary, transport: transport)
defer { server.stop() }
let baseline = ProcessStats.ownRSSKiB

let tokens = try await server.register("member", count: streams)
let owner = tokens[0]
_ = try server.decode(
    ConversationInfo.self,
    try await server.call(
        "POST", "/v1/groups", token: owner, body: try WireJSON.encoder().encode(CreateConversationRequest(name: "all", join: .open))))
_ = try await Concurrently.map(Array(tokens.dropFirst())) { token in
    _ = try await server.call("POST", "/v1/groups/all/join", token: token)
}

/// The instant each stream saw each round's message.
final class Arrivals: Sendable {
    let seen = Mutex<[String: [ContinuousClock.Instant]]>([:])
    func record(_ text: String) { seen.withLock { $0[text, default: []].append(.now) } }
    func count(_ text: String) -> Int { seen.withLock { $0[text]?.count ?? 0 } }
    func last(_ text: String) -> ContinuousClock.Instant? { seen.withLock { $0[text]?.max() } }
}
let arrivals = Arrivals()
let clients = tokens.map { IMClient(serverURL: server.url, transport: transport, token: $0) }
let readers = clients.map { client in
    Task {
        for try await item in client.events(cursor: MemoryCursorStore(), options: EventStreamOptions(pollTimeout: 50)) {
            if case .event(let event) = item, event.type == .message, let text = event.message?.text {
                arrivals.record(text)
            }
        }
    }
}
try await Concurrently.waitUntil { (try? await server.parkedPolls()) ?? 0 >= streams }
try await Task.sleep(for: .seconds(1))

let rss = ProcessStats.ownRSSKiB
let cpuBefore = ProcessStats.ownCPUSeconds
try await Task.sleep(for: .seconds(idleSeconds))
let idleCPU = (ProcessStats.ownCPUSeconds - cpuBefore) / Double(idleSeconds) * 100

var rounds: [Double] = []
for round in 0..<5 {
    let text = "round \(round)"
    try await Concurrently.waitUntil { (try? await server.parkedPolls()) ?? 0 >= streams }
    let start = ContinuousClock.now
    _ = try await server.call(
        "POST", "/v1/conversations/group:all/messages", token: owner,
        body: try WireJSON.encoder().encode(SendMessageRequest(text: text)))
    try await Concurrently.waitUntil(seconds: 60) { arrivals.count(text) >= streams }
    if let last = arrivals.last(text) { rounds.append(Stats.milliseconds(start, last)) }
}
rounds.sort()
for reader in readers { reader.cancel() }

print("Machine: \(Machine.describe()). Server: release `switchboard serve` in its own process; the streams share one CurlTransport (one thread).")
print("")
print("| measurement (\(streams) event streams, one login each, one process) | result |")
print("|---|---|")
print("| process RSS with every stream parked | \(rss / 1024) MiB (\(baseline / 1024) MiB before the streams; \(String(format: "%.1f", Double(rss - baseline) / Double(streams))) KiB per stream) |")
print("| CPU while idle (\(idleSeconds) s, all parked) | \(String(format: "%.2f", idleCPU)) % of one core |")
print("| one group message until every stream has it (5 rounds) | median \(Stats.ms(rounds[rounds.count / 2])), worst \(Stats.ms(rounds.last ?? .nan)) |")
