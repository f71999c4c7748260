import BenchSupport
import Foundation
import IMProtocol

extension FeedBench {
    /// A moderator bot (`switchboard run`, a child process) in a group of `members`, each
    /// holding a parked poll; messages into the group at `rate` per second from ten of them,
    /// one in ten spam. Measured: from the start of a spam message's send to each member's
    /// poll answer that carries its `message_deleted` (the message gone for that member),
    /// and to the last member's; the spam's own delivery to each member, for comparison.
    func moderation(members: Int, rate: Int) async throws {
        let server = try await fresh()
        defer { server.stop() }
        try await server.createBots("modbot", count: 1)
        let folder = server.child.folder + "/runner"
        try FileManager.default.createDirectory(atPath: folder + "/bots", withIntermediateDirectories: true)
        try Self.moderatorBot.write(toFile: folder + "/bots/moderator.yaml", atomically: true, encoding: .utf8)
        let runner = try ChildProcess(binary: binary, arguments: ["run"], config: """
            log_level: warning
            runner:
              server: \(server.url)
              listen: 127.0.0.1:\(ChildProcess.freePort())
              bots: \(folder)/bots
              state: \(folder)/state
            """, folder: folder)
        defer { runner.stop() }
        let tokens = try await server.register("member", count: members)
        try await Concurrently.waitUntil { (try? await server.call("GET", "/v1/groups/lobby", token: tokens[0]))?.status == 200 }
        _ = try await Concurrently.map(tokens, width: 64) { token in
            let answer = try await server.call("POST", "/v1/groups/lobby/join", token: token)
            guard answer.status == 200 else { throw BenchError("join lobby: HTTP \(answer.status)") }
        }
        var cursors = try await Concurrently.map(tokens, width: 64) { try await Self.cursor($0, on: server) }
        let client = try RawClient(port: server.port)
        let polls = try client.open(members)
        func poll(_ index: Int) throws {
            try client.send(RawClient.request("GET", "/v1/events?cursor=\(cursors[index])&timeout=30&limit=1000",
                                              token: tokens[index]), on: polls.lowerBound + index)
        }
        for index in 0..<members { try poll(index) }
        // Every member's poll and the bot's.
        try await Concurrently.waitUntil { (try? await server.parkedPolls()) ?? 0 >= members + 1 }
        // Opened only now: the server closes a connection that sends no request for 10 s.
        let senders = Array(try client.open(10))

        let total = rate * seconds
        let spamCount = (total + 9) / 10
        var sentAt = [Double](repeating: 0, count: total)
        var spamByID: [MessageID: Int] = [:]
        var seenBy = [Int](repeating: 0, count: total)
        var samples: [Double] = []
        var delivered: [Double] = []
        var lasts: [Double] = []
        var busy = Set<Int>()
        var queued: [Int: [(Int, [UInt8])]] = [:]
        var inFlight: [Int: [Int]] = [:]
        // Deletions read before their message's id was known (a message deleted before a
        // member's poll answer was made is delivered with its text gone, and the send's own
        // answer can come last), by id: their arrival times.
        var early: [MessageID: [Double]] = [:]
        func deleted(_ id: MessageID, at arrived: Double) {
            guard let index = spamByID[id] else { return early[id, default: []].append(arrived) }
            let latency = (arrived - sentAt[index]) * 1000
            samples.append(latency)
            seenBy[index] += 1
            if seenBy[index] == members { lasts.append(latency) }
        }
        func learn(_ id: MessageID, _ index: Int) {
            guard spamByID.updateValue(index, forKey: id) == nil else { return }
            for arrived in early.removeValue(forKey: id) ?? [] { deleted(id, at: arrived) }
        }
        let runnerCPU = runner.cpuSeconds
        let start = Machine.monotonicSeconds()
        var next = 0
        do {
            try await run()
        } catch {
            let metrics = String(decoding: (try? await server.call("GET", "/metrics").body) ?? Data(), as: UTF8.self)
            let closes = metrics.split(separator: "\n").filter { $0.hasPrefix("switchboard_http_") && $0.contains("timeouts") }
            throw BenchError("\(error) after \(String(format: "%.1f", Machine.monotonicSeconds() - start)) s, message \(next); "
                             + closes.joined(separator: ", "))
        }
        func run() async throws {
        while lasts.count < spamCount {
            let now = Machine.monotonicSeconds()
            while next < total, start + Double(next) / Double(rate) <= now {
                let sender = next % senders.count
                let text = next % 10 == 0 ? "\(Self.spamText)\(next)" : "hello everyone \(next)"
                let request = RawClient.request("POST", "/v1/conversations/group:lobby/messages", token: tokens[sender],
                                                body: #"{"text":"\#(text)"}"#)
                sentAt[next] = Machine.monotonicSeconds()
                inFlight[senders[sender], default: []].append(next)
                if busy.insert(senders[sender]).inserted {
                    try client.send(request, on: senders[sender])
                } else {
                    queued[senders[sender], default: []].append((next, request))
                }
                next += 1
            }
            let due = next < total ? start + Double(next) / Double(rate) : now + 1
            try client.pump(seconds: max(0, min(1, due - Machine.monotonicSeconds()))) { answer in
                if polls.contains(answer.connection) {
                    let member = answer.connection - polls.lowerBound
                    guard answer.status == 200 else { throw BenchError("poll: HTTP \(answer.status)") }
                    let batch = try WireJSON.decoder().decode(EventBatch.self, from: Data(answer.body))
                    cursors[member] = batch.cursor
                    try poll(member)
                    for event in batch.events where event.type == .message {
                        // The spam's own delivery, for comparison: the feed's share of the time.
                        guard let message = event.message, message.text.hasPrefix(Self.spamText),
                              let index = Int(message.text.dropFirst(Self.spamText.count)) else { continue }
                        delivered.append((answer.arrived - sentAt[index]) * 1000)
                        learn(message.id, index)
                    }
                    for event in batch.events where event.type == .messageDeleted {
                        if let id = event.message?.id { deleted(id, at: answer.arrived) }
                    }
                } else {
                    guard answer.status == 201, let index = inFlight[answer.connection]?.removeFirst() else {
                        throw BenchError("send: HTTP \(answer.status)")
                    }
                    if index % 10 == 0 { learn(try WireJSON.decoder().decode(Message.self, from: Data(answer.body)).id, index) }
                    if var waiting = queued[answer.connection], !waiting.isEmpty {
                        try client.send(waiting.removeFirst().1, on: answer.connection)
                        queued[answer.connection] = waiting
                    } else {
                        busy.remove(answer.connection)
                        // The last sends are answered: the server would close idle senders
                        // after 10 s while the last deletions are still on their way.
                        if next == total, busy.isEmpty { for sender in senders { client.drop(sender) } }
                    }
                }
            }
            if now - start > Double(seconds) + 60 {
                throw BenchError("moderation: \(lasts.count) of \(spamCount) spam messages deleted for every member")
            }
        }
        }
        samples.sort()
        lasts.sort()
        delivered.sort()
        row("spam → deleted for each member, \(members)-member group, every member polling, \(rate) msgs/s (1 in 10 spam, "
                + "\(spamCount) spam messages)",
            "p50 \(Stats.ms(Stats.percentile(samples, 0.5))), p99 \(Stats.ms(Stats.percentile(samples, 0.99))); "
                + "deleted for the last member: p50 \(Stats.ms(Stats.percentile(lasts, 0.5))), "
                + "p99 \(Stats.ms(Stats.percentile(lasts, 0.99))); the spam's own delivery: p50 "
                + "\(Stats.ms(Stats.percentile(delivered, 0.5))), p99 \(Stats.ms(Stats.percentile(delivered, 0.99))); runner CPU "
                + "\(Int((runner.cpuSeconds - runnerCPU) * 1e6 / Double(total))) µs per message")
    }

    /// The spam's text, before its index: "free money" in l33t, for the banned-words rule.
    static let spamText = "get FR33 m0ney now "

    /// The moderator of the measurement: the shipped banned-words rule, with strikes that
    /// only count (no mute), so the senders keep sending.
    static let moderatorBot = """
        bot: modbench
        account: { username: modbot0, password: bench-password }
        join: [ { group: lobby, policy: open } ]
        listen: ["group:lobby"]
        limits: { per_conversation: 1000/s, per_group: 1000/s, total: 1000/s }
        loop_guard: { max_replies_per_minute: 100000 }
        rules:
          - name: banned-words
            when: { group: lobby, text: { any_word: [scam, "free money", "crypto giveaway"], normalize: true } }
            do: [ { delete: message }, { strike: { counter: spam, decay: 24h } }, { stop: true } ]
          - name: flood
            when: { group: lobby, rate: { per: sender, more_than: 50, within: 10s } }
            mode: dry
            do: [ { mute: 5m } ]
        """
}
