import BenchSupport
import Foundation
import IMClient
import IMProtocol
import Synchronization

/// Runs the server scenarios against a child `switchboard serve` process.
final class ServerBench: @unchecked Sendable {
    // @unchecked: the process handle and report are touched only by the benchmark's one
    // driving task.
    let options: BenchOptions
    /// Several transports, each with its own thread: libcurl's multi interface polls
    /// every connection of a transport on each wake-up, so with a thousand parked polls
    /// on one transport the client, not the server, set the pace of the fan-out.
    let transports = (0..<16).map { _ in CurlTransport(configuration: .init(maxCachedConnections: 4_000)) }
    let directory: String
    let nodes: BenchNodes
    var report: [String] = []

    init(options: BenchOptions) throws {
        self.options = options
        directory = NSTemporaryDirectory() + "switchboard-bench-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        nodes = BenchNodes(options: options, directory: directory)
    }

    /// The first node's address (where sends go).
    var base: String { nodes.base(0) }

    func stopServer() async {
        await nodes.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    // MARK: API helpers

    /// The lane of a client: the same for every request with this token.
    func lane(_ token: String) -> Int { token.utf8.reduce(0) { ($0 &* 31 &+ Int($1)) & 0xFFFF } }

    /// One request to `node`; `lane` picks the transport (keep a client's requests on one
    /// lane so its connection is reused).
    func call(
        _ method: String, _ path: String, token: String? = nil, body: Data? = nil, timeout: Duration = .seconds(60),
        lane: Int = 0, node: Int = 0
    ) async throws -> TransportResponse {
        var headers: [(name: String, value: String)] = [("Content-Type", "application/json")]
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        return try await transports[lane % transports.count].send(
            TransportRequest(method: method, url: nodes.base(node) + path, headers: headers, body: body, timeout: timeout))
    }

    func json<T: Encodable>(_ value: T) throws -> Data { try WireJSON.encoder().encode(value) }

    func decode<T: Decodable>(_ type: T.Type, _ response: TransportResponse) throws -> T {
        guard (200..<300).contains(response.status) else {
            throw BenchError("HTTP \(response.status): \(String(decoding: response.body, as: UTF8.self))")
        }
        return try WireJSON.decoder().decode(T.self, from: response.body)
    }

    /// Registers `count` accounts named `prefix0…`, 64 at a time; returns their tokens.
    func register(_ prefix: String, count: Int) async throws -> [String] {
        try await withThrowingTaskGroup(of: (Int, String).self) { group in
            var tokens = [String](repeating: "", count: count)
            var next = 0
            func add() {
                let index = next
                next += 1
                group.addTask {
                    let body = try self.json(RegisterRequest(username: "\(prefix)\(index)", password: "bench-password"))
                    let auth = try self.decode(AuthResponse.self, try await self.call("POST", "/v1/register", body: body))
                    return (index, auth.token)
                }
            }
            for _ in 0..<min(64, count) { add() }
            while let (index, token) = try await group.next() {
                tokens[index] = token
                if next < count { add() }
            }
            return tokens
        }
    }

    func cursor(_ token: String, node: Int = 0) async throws -> String {
        try decode(EventBatch.self, try await call("GET", "/v1/events", token: token, lane: lane(token), node: node)).cursor
    }

    func send(_ token: String, to address: String, text: String) async throws {
        let body = try json(SendMessageRequest(text: text))
        let response = try await call("POST", "/v1/conversations/\(address)/messages", token: token, body: body)
        guard response.status == 201 else { throw BenchError("send: HTTP \(response.status)") }
    }

    // MARK: Scenarios

    func runAll() async throws {
        try await nodes.start()
        let machine = Machine.describe()
        report.append("Machine: \(machine), load average \(Machine.loadAverage()) at the start (shared with other builds). Server: `switchboard serve` (release), \(nodes.describe), rate limits off, cheap password hashing for set-up only.")
        report.append("")
        report.append("| measurement | result |")
        report.append("|---|---|")
        if wants("healthz") { try await healthCeiling() }
        if wants("sends") { try await durableSends() }
        if wants("latency") { try await latency() }
        if wants("fanout") { try await fanOut() }
        if wants("parked") { try await parkedMemory() }
        print(report.joined(separator: "\n"))
    }

    func wants(_ scenario: String) -> Bool { options.only.isEmpty || options.only.contains(scenario) }

    /// A line for --trace, to line the scenarios up with a profile (`perf record -k CLOCK_MONOTONIC`).
    func trace(_ text: String) {
        FileHandle.standardError.write(Data("[\(String(format: "%.6f", Machine.monotonicSeconds()))] \(text)\n".utf8))
    }

    func row(_ name: String, _ value: String) {
        report.append("| \(name) | \(value) |")
        FileHandle.standardError.write(Data("\(name): \(value)\n".utf8))
    }

    func healthCeiling() async throws {
        let result = try Wrk.run(url: base + "/healthz", connections: 64, seconds: options.seconds)
        row("GET /healthz (HTTP ceiling, wrk -t2 -c64)", "\(result.requestsPerSecond) req/s, p50 \(result.p50), p99 \(result.p99)")
    }

    /// Sends at full speed through wrk, every sender to one recipient; with several
    /// nodes, one wrk per node with its share of the senders, all at once.
    func durableSends() async throws {
        let tokens = try await register("sender", count: options.senders)
        _ = try await register("sink", count: 1)
        let before = try await writerCounters()
        let cpuBefore = nodes.cpuMicroseconds
        let databaseBefore = nodes.databaseCPUMicroseconds
        let clientBefore = Machine.childrenCPUMicroseconds()
        let started = ContinuousClock.now
        let results = try await withThrowingTaskGroup(of: Wrk.Result.self) { group in
            for node in 0..<nodes.count {
                let mine = tokens.enumerated().filter { $0.offset % nodes.count == node }.map(\.element)
                let url = nodes.base(node) + "/v1/conversations/user:sink0/messages"
                let script = Wrk.sendScript(tokens: mine, path: "/v1/conversations/user:sink0/messages")
                let (seconds, directory) = (options.seconds, directory)
                group.addTask {
                    try await Self.offThePool {
                        try Wrk.run(url: url, connections: mine.count, seconds: seconds, script: script, directory: directory)
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let elapsed = ContinuousClock.now - started
        let cpu = nodes.cpuMicroseconds - cpuBefore
        let databaseCPU = nodes.databaseCPUMicroseconds - databaseBefore
        let clientCPU = Machine.childrenCPUMicroseconds() - clientBefore
        let after = try await writerCounters()
        let perSecond = results.map(\.requestsPerSecond).reduce(0, +)
        let latencies = results.map { "p50 \($0.p50), p99 \($0.p99)" }.joined(separator: "; ")
        row(
            "durable sends, \(options.senders) concurrent senders (wrk)" + (nodes.count > 1 ? " over \(nodes.count) nodes" : ""),
            "\(perSecond) sends/s, \(latencies), non-2xx \(results.map(\.errors).reduce(0, +))")
        // A server without the writer's counters (an older build) reports zeros.
        let batches = max(1, after.batches - before.batches)
        let writes = max(1, after.writes - before.writes)
        let sends = Double(max(1, results.map(\.requests).reduce(0, +)))
        let wall = Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12
        row(
            "writer during the sends" + (nodes.count > 1 ? " (all nodes)" : ""),
            after.batches == before.batches ? "not reported by this server" : String(
                format: "%.1f writes per commit (largest %d), busy %.0f%% of the time, %.0f µs per commit, CPU %.1f µs per send",
                Double(writes) / Double(batches), after.largest, Double(after.busy - before.busy) / wall / Double(nodes.count) * 100,
                Double(after.commit - before.commit) / Double(batches), Double(after.cpu - before.cpu) / Double(writes)))
        var usage = String(
            format: "server %.1f µs per send (%.2f cores), wrk %.1f µs per send (%.2f cores)",
            Double(cpu) / sends, Double(cpu) / wall, Double(clientCPU) / sends, Double(clientCPU) / wall)
        if databaseCPU > 0 {
            usage += String(format: ", PostgreSQL %.1f µs per send (%.2f cores)", Double(databaseCPU) / sends, Double(databaseCPU) / wall)
        }
        row("CPU during the sends", usage)
    }

    /// Runs a blocking call (waiting for a child process) on a thread of its own.
    static func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    func latency() async throws {
        let tokens = try await register("latency", count: 2)
        let (sender, receiver) = (tokens[0], tokens[1])
        let sentAt = Locked<[String: ContinuousClock.Instant]>([:])
        var samples: [Double] = []
        // With several nodes the receiver polls another node than the one sends go to.
        let far = nodes.count - 1
        var cursor = try await cursor(receiver, node: far)
        let total = options.rate * options.seconds
        let pacing = Task {
            let start = ContinuousClock.now
            for index in 0..<total {
                let due = start + .microseconds(Int64(index) * 1_000_000 / Int64(options.rate))
                try await Task.sleep(until: due, clock: .continuous)
                let text = "m\(index)"
                sentAt.withLock { $0[text] = ContinuousClock.now }
                Task { try await self.send(sender, to: "user:latency1", text: text) }
            }
        }
        while samples.count < total {
            let batch = try decode(
                EventBatch.self,
                try await call("GET", "/v1/events?cursor=\(cursor)&timeout=10&limit=1000", token: receiver, node: far))
            let now = ContinuousClock.now
            cursor = batch.cursor
            if batch.events.isEmpty { break }
            for event in batch.events {
                guard let text = event.message?.text, let sent = sentAt.withLock({ $0[text] }) else { continue }
                samples.append(Double((now - sent).components.attoseconds) / 1e15 + Double((now - sent).components.seconds) * 1000)
            }
        }
        _ = try? await pacing.value
        samples.sort()
        row(
            "send→delivery to a parked poll at \(options.rate) msgs/s (\(samples.count) messages)"
                + (far > 0 ? ", sent on node 1, polled on node \(far + 1)" : ""),
            "p50 \(Stats.ms(Stats.percentile(samples, 0.5))), p99 \(Stats.ms(Stats.percentile(samples, 0.99)))")
    }

    func fanOut() async throws {
        let members = options.fanout
        let tokens = try await register("member", count: members)
        let owner = tokens[0]
        _ = try decode(
            ConversationInfo.self,
            try await call(
                "POST", "/v1/groups", token: owner, body: try json(CreateConversationRequest(name: "fanout", join: .open))))
        try await forEachConcurrently(Array(tokens.dropFirst())) { token in
            let joined = try await self.call("POST", "/v1/groups/fanout/join", token: token, lane: self.lane(token))
            guard joined.status == 200 else { throw BenchError("join: HTTP \(joined.status)") }
        }
        var rounds: [Double] = []
        var serverCPU = 0
        var (writerBusy, writerCommit) = (0, 0)
        for round in 0..<5 {
            let count = nodes.count
            let cursors = try await mapConcurrently(tokens) { try await self.cursor($0, node: self.lane($0) % count) }
            let arrived = Locked<[(ContinuousClock.Instant, TransportResponse)]>([])
            let polls = Task {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for (token, cursor) in zip(tokens, cursors) {
                        group.addTask {
                            let response = try await self.call(
                                "GET", "/v1/events?cursor=\(cursor)&timeout=30", token: token, lane: self.lane(token),
                                node: self.lane(token) % count)
                            // Decoded once all have arrived: decoding a thousand answers here
                            // would hold up the tasks still to note their arrival.
                            arrived.withLock { $0.append((ContinuousClock.now, response)) }
                        }
                    }
                    try await group.waitForAll()
                }
            }
            try await waitUntil { (try? await self.parkedPolls()) ?? 0 >= members }
            let start = ContinuousClock.now
            let startMonotonic = Machine.monotonicSeconds()
            let cpuBefore = nodes.cpuMicroseconds
            let writerBefore = try await writerCounters()
            try await send(owner, to: "group:fanout", text: "fanout \(round)")
            try await polls.value
            serverCPU += nodes.cpuMicroseconds - cpuBefore
            let writerAfter = try await writerCounters()
            writerBusy += writerAfter.busy - writerBefore.busy
            writerCommit += writerAfter.commit - writerBefore.commit
            let times = try arrived.withLock { $0 }.filter { _, response in
                try decode(EventBatch.self, response).events.contains { $0.message?.text == "fanout \(round)" }
            }.map(\.0)
            guard times.count == members, let last = times.max() else {
                throw BenchError("fan-out round \(round): \(times.count) of \(members) polls got the message")
            }
            rounds.append(Double((last - start).components.attoseconds) / 1e15 + Double((last - start).components.seconds) * 1000)
            if options.trace {
                trace("fan-out round \(round): sent at \(startMonotonic), all arrived after \(Stats.ms(rounds[rounds.count - 1]))")
            }
        }
        rounds.sort()
        let writer =
            writerBusy == 0
            ? "" : ", writer \(Stats.ms(Double(writerBusy) / 5000)) per round (COMMIT \(Stats.ms(Double(writerCommit) / 5000)))"
        row(
            "one message to a \(members)-member group, \(members) parked polls: until all have it (5 rounds)"
                + (nodes.count > 1 ? ", polls spread over \(nodes.count) nodes" : ""),
            "median \(Stats.ms(rounds[2])), worst \(Stats.ms(rounds[4])), server CPU \(serverCPU / 5 / members) µs per poll answered"
                + writer)
    }

    /// Server memory per parked poll, twice, each on a fresh server: every poll on a new
    /// connection, and every poll on a connection that has served a request before (as a
    /// long-polling client's is; the HTTP library keeps such a connection's buffer in use).
    func parkedMemory() async throws {
        let count = options.parked
        for reused in [false, true] {
            try await nodes.restart()
            let tokens = try await register("parked", count: count)
            var before = nodes.rss
            // All at once for reused connections, so each client has a connection of its own.
            let cursors = try await mapConcurrently(tokens, width: reused ? count : 128) { try await self.cursor($0) }
            if !reused { before = nodes.rss }
            let polls = Task {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for (token, cursor) in zip(tokens, cursors) {
                        group.addTask {
                            _ = try await self.call(
                                "GET", "/v1/events?cursor=\(cursor)&timeout=50", token: token, lane: self.lane(token))
                        }
                    }
                    try await group.waitForAll()
                }
            }
            try await waitUntil { (try? await self.parkedPolls()) ?? 0 >= count }
            let after = nodes.rss
            polls.cancel()
            _ = try? await polls.value
            let per = Double(after - before) / Double(count)
            row(
                reused
                    ? "server RSS with \(count) parked polls, each on a connection that served a request before"
                    : "server RSS with \(count) parked polls, each on a new connection",
                "\(after / 1024) MiB (\(before / 1024) MiB before): \(String(format: "%.1f", per)) KiB per parked poll")
        }
    }

    /// Polls parked on all nodes.
    func parkedPolls() async throws -> Int {
        var total = 0
        for node in 0..<nodes.count { total += try await metric("switchboard_parked_polls", in: try await metricsText(node)) }
        return total
    }

    func metricsText(_ node: Int = 0) async throws -> String {
        String(decoding: try await call("GET", "/metrics", node: node).body, as: UTF8.self)
    }

    func metric(_ name: String, in text: String) async throws -> Int {
        let line = text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return Int(line?.split(separator: " ").last ?? "0") ?? 0
    }

    /// A counter of seconds (`…_seconds_total`), in microseconds.
    func microseconds(_ name: String, in text: String) -> Int {
        let line = text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return Int((Double(line?.split(separator: " ").last ?? "0") ?? 0) * 1e6)
    }

    /// The store's writer counters from /metrics, summed over the nodes (the largest batch:
    /// the largest of any).
    func writerCounters() async throws -> (batches: Int, writes: Int, largest: Int, busy: Int, commit: Int, cpu: Int) {
        var total = (batches: 0, writes: 0, largest: 0, busy: 0, commit: 0, cpu: 0)
        for node in 0..<nodes.count {
            let text = try await metricsText(node)
            total.batches += try await metric("switchboard_store_batches_total", in: text)
            total.writes += try await metric("switchboard_store_writes_total", in: text)
            total.largest = max(total.largest, try await metric("switchboard_store_largest_batch", in: text))
            total.busy += microseconds("switchboard_store_busy_seconds_total", in: text)
            total.commit += microseconds("switchboard_store_commit_seconds_total", in: text)
            total.cpu += microseconds("switchboard_store_cpu_seconds_total", in: text)
        }
        return total
    }

    // MARK: Concurrency helpers

    func forEachConcurrently(_ items: [String], _ body: @escaping @Sendable (String) async throws -> Void) async throws {
        _ = try await mapConcurrently(items) { try await body($0) }
    }

    func mapConcurrently<T: Sendable>(
        _ items: [String], width: Int = 128, _ body: @escaping @Sendable (String) async throws -> T
    ) async throws -> [T] {
        try await withThrowingTaskGroup(of: (Int, T).self) { group in
            var results = [T?](repeating: nil, count: items.count)
            var next = 0
            for _ in 0..<min(width, items.count) {
                let index = next
                next += 1
                group.addTask { (index, try await body(items[index])) }
            }
            while let (index, value) = try await group.next() {
                results[index] = value
                if next < items.count {
                    let index = next
                    next += 1
                    group.addTask { (index, try await body(items[index])) }
                }
            }
            return results.compactMap { $0 }
        }
    }

    func waitUntil(_ condition: @escaping @Sendable () async -> Bool) async throws {
        for _ in 0..<1200 {
            if await condition() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw BenchError("timed out waiting for a condition")
    }
}

/// A value behind a lock, shareable between tasks.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<T: Sendable>(_ body: (inout Value) -> T) -> T { mutex.withLock { body(&$0) } }
}
