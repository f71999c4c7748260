import BenchSupport
import Foundation
import IMClient
import IMProtocol

/// The feed's aims, measured against a release `switchboard serve` child process from
/// this separate process: set-up goes through libcurl, every timed request through
/// `RawClient` (or wrk).
final class FeedBench {
    let binary: String
    let durability: String
    let seconds: Int
    let rounds: Int
    let transport = CurlTransport(configuration: .init(maxCachedConnections: 30_000))
    var report: [String] = []

    init(binary: String, durability: String, seconds: Int, rounds: Int) {
        self.binary = binary
        self.durability = durability
        self.seconds = seconds
        self.rounds = rounds
    }

    func row(_ name: String, _ value: String) {
        report.append("| \(name) | \(value) |")
        FileHandle.standardError.write(Data("\(name): \(value)\n".utf8))
    }

    func json<T: Encodable>(_ value: T) throws -> Data { try WireJSON.encoder().encode(value) }

    func fresh() async throws -> BenchServer { try await BenchServer(binary: binary, durability: durability, transport: transport) }

    /// Creates a group of `members` (the first one creates it); returns their tokens.
    func group(_ name: String, members: Int, on server: BenchServer, prefix: String) async throws -> [String] {
        let tokens = try await server.register(prefix, count: members)
        _ = try server.decode(
            ConversationInfo.self,
            try await server.call("POST", "/v1/groups", token: tokens[0], body: try json(CreateConversationRequest(name: name, join: .open))))
        _ = try await Concurrently.map(Array(tokens.dropFirst()), width: 64) { token in
            let answer = try await server.call("POST", "/v1/groups/\(name)/join", token: token)
            guard answer.status == 200 else { throw BenchError("join \(name): HTTP \(answer.status)") }
        }
        return tokens
    }

    static func cursor(_ token: String, on server: BenchServer) async throws -> String {
        try server.decode(EventBatch.self, try await server.call("GET", "/v1/events", token: token)).cursor
    }

    // MARK: Throughput: sends against the HTTP ceiling, and reads that must not regress

    /// `GET /healthz`, durable one-to-one and group sends (64 wrk connections each), then
    /// history, the conversation list and a feed read with a backlog, on one server.
    func throughput() async throws {
        let server = try await fresh()
        defer { server.stop() }
        let healthz = try Wrk.run(url: server.url + "/healthz", connections: 64, seconds: seconds)
        row("GET /healthz (HTTP ceiling, wrk -t2 -c64)", "\(healthz.requestsPerSecond) req/s")

        let senders = try await server.register("sender", count: 64)
        let sink = try await server.register("sink", count: 1)[0]
        let sinkCursor = try await Self.cursor(sink, on: server)
        let direct = try await sends(
            "durable one-to-one sends, 64 senders (wrk -c64)", to: "user:sink0", as: senders, on: server, ceiling: healthz)
        let members = try await group("g50", members: 50, on: server, prefix: "m")
        let grouped = try await sends(
            "durable sends to a 50-member group, 64 connections (wrk -c64)", to: "group:g50", as: members, on: server,
            ceiling: healthz)

        let readSeconds = max(3, seconds / 2)
        let reads: [(String, String, String)] = [
            ("history, newest 50 of the group's messages", "/v1/conversations/group:g50/messages?limit=50", members[0]),
            ("history, 50 messages from the middle", "/v1/conversations/group:g50/messages?limit=50&before=\(grouped.requests / 2)", members[0]),
            ("conversation list of a user in 64 one-to-one conversations, with unread counts", "/v1/conversations", sink),
            ("feed read, 100 events of a backlog of \(direct.requests) in 64 conversations", "/v1/events?cursor=\(sinkCursor)&timeout=0&limit=100", sink),
        ]
        for (name, path, token) in reads {
            let cpuBefore = server.child.cpuSeconds
            let result = try Wrk.run(
                url: server.url + path, connections: 16, seconds: readSeconds,
                script: Wrk.getScript(path: path, token: token), directory: server.child.folder)
            let cpu = (server.child.cpuSeconds - cpuBefore) * 1e6 / Double(max(1, result.requests))
            row("\(name) (wrk -c16)", "\(result.requestsPerSecond) req/s, p50 \(result.p50), p99 \(result.p99), non-2xx \(result.errors); server CPU \(Int(cpu)) µs per request")
        }
    }

    /// The store writer's counters from `/metrics`: batches, writes, CPU µs.
    func writer(_ server: BenchServer) async throws -> (batches: Int, writes: Int, cpu: Int) {
        let text = String(decoding: try await server.call("GET", "/metrics").body, as: UTF8.self)
        let value = { (name: String) in
            Double(text.split(separator: "\n").first { $0.hasPrefix(name + " ") }?.split(separator: " ").last ?? "0") ?? 0
        }
        return (
            Int(value("switchboard_store_batches_total")), Int(value("switchboard_store_writes_total")),
            Int(value("switchboard_store_cpu_seconds_total") * 1e6)
        )
    }

    /// Durable sends to `address` for `seconds` over 64 connections, rotating `tokens`.
    func sends(_ name: String, to address: String, as tokens: [String], on server: BenchServer, ceiling: Wrk.Result)
        async throws -> Wrk.Result
    {
        let path = "/v1/conversations/\(address)/messages"
        let writerBefore = try await writer(server)
        let cpuBefore = server.child.cpuSeconds
        let result = try Wrk.run(
            url: server.url + path, connections: 64, seconds: seconds, script: Wrk.sendScript(tokens: tokens, path: path),
            directory: server.child.folder)
        let cpu = (server.child.cpuSeconds - cpuBefore) * 1e6 / Double(max(1, result.requests))
        let writerAfter = try await writer(server)
        let writes = max(1, writerAfter.writes - writerBefore.writes)
        let ratio = Double(result.requestsPerSecond) / Double(max(1, ceiling.requestsPerSecond))
        row(
            name,
            "\(result.requestsPerSecond) sends/s (\(String(format: "%.2f", ratio)) × /healthz), p50 \(result.p50), p99 \(result.p99), non-2xx \(result.errors); "
                + "server CPU \(Int(cpu)) µs per send, of it the writer's \((writerAfter.cpu - writerBefore.cpu) / writes) µs; "
                + String(format: "%.1f", Double(writes) / Double(max(1, writerAfter.batches - writerBefore.batches))) + " writes per commit")
        return result
    }

    // MARK: Fan-out: one message, every member parked

    /// One message to a group of `members`, each with a parked poll on a connection of
    /// its own: the time from the start of the send's request until the last poll's
    /// answer has arrived.
    func fanOut(members: Int) async throws {
        let server = try await fresh()
        defer { server.stop() }
        let tokens = try await group("fanout", members: members, on: server, prefix: "member")
        var cursors = try await Concurrently.map(tokens, width: 64) { try await Self.cursor($0, on: server) }
        let client = try RawClient(port: server.port)
        let polls = try client.open(members)
        let sender = try client.open(1).lowerBound
        var lasts: [Double] = []
        var medians: [Double] = []
        var sendAnswers: [Double] = []
        var cpu: [Double] = []
        var clientCPU = 0.0
        for round in 0..<rounds {
            for (connection, (token, cursor)) in zip(polls, zip(tokens, cursors)) {
                try client.send(RawClient.request("GET", "/v1/events?cursor=\(cursor)&timeout=50", token: token), on: connection)
            }
            try await Concurrently.waitUntil { (try? await server.parkedPolls()) ?? 0 >= members }
            let text = "fanout \(round)"
            let request = RawClient.request(
                "POST", "/v1/conversations/group:fanout/messages", token: tokens[0], body: #"{"text":"\#(text)"}"#)
            let cpuBefore = server.child.cpuSeconds
            let ownBefore = ProcessStats.ownCPUSeconds
            let start = Machine.monotonicSeconds()
            try client.send(request, on: sender)
            let answers = try client.collect(members + 1)
            cpu.append(server.child.cpuSeconds - cpuBefore)
            clientCPU += ProcessStats.ownCPUSeconds - ownBefore
            var arrivals: [Double] = []
            for answer in answers {
                guard answer.status / 100 == 2 else {
                    throw BenchError("fan-out round \(round): HTTP \(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
                }
                if answer.connection == sender {
                    sendAnswers.append((answer.arrived - start) * 1000)
                    continue
                }
                let batch = try WireJSON.decoder().decode(EventBatch.self, from: Data(answer.body))
                guard batch.events.contains(where: { $0.message?.text == text }) else {
                    throw BenchError("fan-out round \(round): a poll's answer lacks the message")
                }
                cursors[answer.connection - polls.lowerBound] = batch.cursor
                arrivals.append((answer.arrived - start) * 1000)
            }
            arrivals.sort()
            lasts.append(arrivals.last ?? .nan)
            medians.append(Stats.percentile(arrivals, 0.5))
        }
        let sortedLasts = lasts.sorted()
        row(
            "one message to \(members) members, \(members) parked polls: last answer after the send's start (\(rounds) rounds)",
            "median \(Stats.ms(Stats.percentile(sortedLasts, 0.5))), best \(Stats.ms(sortedLasts.first ?? .nan)), worst \(Stats.ms(sortedLasts.last ?? .nan)); "
                + "all rounds: \(lasts.map { String(format: "%.1f", $0) }.joined(separator: ", ")) ms; "
                + "half the polls answered by \(Stats.ms(Stats.percentile(medians.sorted(), 0.5))), the send answered after \(Stats.ms(Stats.percentile(sendAnswers.sorted(), 0.5))); "
                + "server CPU \(Int(cpu.reduce(0, +) * 1e6 / Double(members * rounds))) µs per poll answered, this client's \(Int(clientCPU * 1e6 / Double(members * rounds))) µs per answer read")
    }

    // MARK: Delivery latency at a steady rate

    /// One receiver with a parked poll; messages to it at `rate` per second over 16
    /// sender connections; the time from each send's start to the receiver's answer.
    func latency(rate: Int) async throws {
        let server = try await fresh()
        defer { server.stop() }
        let tokens = try await server.register("latency", count: 2)
        let (senderToken, receiverToken) = (tokens[0], tokens[1])
        var cursor = try await Self.cursor(receiverToken, on: server)
        let client = try RawClient(port: server.port)
        let receiver = try client.open(1).lowerBound
        let senders = Array(try client.open(16))
        let total = rate * seconds
        var sentAt = [Double](repeating: 0, count: total)
        var samples: [Double] = []
        var sendTimes: [Double] = []
        var inFlight: [Int: [Int]] = [:]
        var busy = Set<Int>()
        var queued: [Int: [[UInt8]]] = [:]
        let poll = { (cursor: String) in RawClient.request("GET", "/v1/events?cursor=\(cursor)&timeout=30&limit=1000", token: receiverToken) }
        try client.send(poll(cursor), on: receiver)
        try await Concurrently.waitUntil { (try? await server.parkedPolls()) ?? 0 >= 1 }
        let start = Machine.monotonicSeconds()
        var next = 0
        let marker = Array(#""text":"m"#.utf8)
        while samples.count < total {
            let now = Machine.monotonicSeconds()
            while next < total, start + Double(next) / Double(rate) <= now {
                let connection = senders[next % senders.count]
                let request = RawClient.request(
                    "POST", "/v1/conversations/user:latency1/messages", token: senderToken, body: #"{"text":"m\#(next)"}"#)
                sentAt[next] = Machine.monotonicSeconds()
                inFlight[connection, default: []].append(next)
                if busy.contains(connection) {
                    queued[connection, default: []].append(request)
                } else {
                    busy.insert(connection)
                    try client.send(request, on: connection)
                }
                next += 1
            }
            let due = next < total ? start + Double(next) / Double(rate) : now + 1
            try client.pump(seconds: max(0, min(1, due - Machine.monotonicSeconds()))) { answer in
                if answer.connection == receiver {
                    guard answer.status == 200, let nextCursor = RawClient.cursor(of: answer.body) else {
                        throw BenchError("poll: HTTP \(answer.status)")
                    }
                    cursor = nextCursor
                    try client.send(poll(cursor), on: receiver)
                    var from = 0
                    while let found = RawClient.find(marker, in: answer.body, from: from) {
                        var index = 0
                        var position = found + marker.count
                        while position < answer.body.count, let digit = Int(exactly: answer.body[position]), (48...57).contains(digit) {
                            index = index * 10 + digit - 48
                            position += 1
                        }
                        if index < total { samples.append((answer.arrived - sentAt[index]) * 1000) }
                        from = position
                    }
                } else {
                    guard answer.status == 201 else { throw BenchError("send: HTTP \(answer.status)") }
                    if let index = inFlight[answer.connection]?.removeFirst() {
                        sendTimes.append((answer.arrived - sentAt[index]) * 1000)
                    }
                    if var waiting = queued[answer.connection], !waiting.isEmpty {
                        try client.send(waiting.removeFirst(), on: answer.connection)
                        queued[answer.connection] = waiting
                    } else {
                        busy.remove(answer.connection)
                    }
                }
            }
            if now - start > Double(seconds) + 30 { throw BenchError("latency: \(samples.count) of \(total) delivered") }
        }
        samples.sort()
        sendTimes.sort()
        row(
            "send→delivery to a parked poll at \(rate) msgs/s, from the send's start (\(samples.count) messages)",
            "p50 \(Stats.ms(Stats.percentile(samples, 0.5))), p99 \(Stats.ms(Stats.percentile(samples, 0.99))), worst \(Stats.ms(samples.last ?? .nan)); "
                + "the sends answered: p50 \(Stats.ms(Stats.percentile(sendTimes, 0.5))), p99 \(Stats.ms(Stats.percentile(sendTimes, 0.99)))")
    }
}
