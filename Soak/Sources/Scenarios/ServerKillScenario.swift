import Foundation
import IMClient
import IMProtocol

/// Scenario (a): clients send with retries (the same `client_msg_id` again) while the
/// server is killed with SIGKILL at random moments and started again on the same data;
/// every client also long-polls its feed through the kills. On PostgreSQL (`--store
/// postgres`) every other kill is the database's instead: stopped as a crash would stop it,
/// down for a moment, and started again under the running server, which must recover alone.
///
/// Passes when every answered send is stored exactly once, no send is given up, every
/// conversation's seqs run without a hole, every feed delivered every message of its
/// conversations in order without a gap (repeats allowed, and dropped by position), no
/// reconnecting poll got 409 or 410, every failed attempt got 503 with the envelope or a
/// refused or cut connection (no 500, no timeout), the server answered again within a
/// minute of the database's start, and the store's integrity check passes after every
/// kill and at the end.
struct ServerKillScenario: Scenario {
    static let name = "server-kill"
    static let summary = "sends with retries while the server is SIGKILLed and restarted; nothing lost or doubled, feeds without gaps"

    let clients: Int
    let messages: Int
    let kills: Int
    let seed: UInt64
    let binary: String
    let store: any SoakStore
    let work: String

    init(options: Options) throws {
        clients = max(2, try options.int("clients", full: 20, quick: 20))
        work = try options.workFolder()
        store = try SoakStores.make(options.string("store", default: "sqlite"), work: work)
        // PostgreSQL commits each batch over a socket with fsync: a third of SQLite's pace here.
        messages = try options.int("messages", full: 100_000, quick: store.restartable ? 4_000 : 10_000)
        kills = try options.int("kills", full: 10, quick: 3)
        seed = options.seed
        binary = options.binary
    }

    /// Who sends what: client `i` sends its `k`-th message to its group (five clients a
    /// group), or every fifth one to its partner (`i ^ 1`) directly.
    struct Plan {
        let clients: Int
        let perClient: Int

        func name(_ client: Int) -> String { "soak-u\(client)" }
        func group(_ client: Int) -> Int { client / 5 }
        func partner(_ client: Int) -> Int { client ^ 1 < clients ? client ^ 1 : client }
        func isDirect(_ index: Int) -> Bool { index % 5 == 4 }
        func address(_ client: Int, _ index: Int) -> String {
            isDirect(index) ? "user:\(name(partner(client)))" : "group:soak-g\(group(client))"
        }
        func clientMessageID(_ client: Int, _ index: Int) -> String { "soak-\(client)-\(index)" }

        /// Messages client `reader` sees in its group and direct conversation.
        func expected(_ reader: Int) -> Int {
            let groupSenders = (0..<clients).filter { group($0) == group(reader) }.count
            let direct = (0..<perClient).filter(isDirect).count
            let inGroup = groupSenders * (perClient - direct)
            return inGroup + direct * (partner(reader) == reader ? 1 : 2)
        }
    }

    func run(_ report: inout Report) async throws {
        let transport = CurlTransport()
        let plan = Plan(clients: clients, perClient: messages / clients)
        report.figure("store", store.name)
        report.figure("seed", seed)
        let server = try await ServerUnderTest(binary: binary, store: store, work: work, transport: transport,
                                               settings: ["durability: full", "rate_limits: { enabled: false }"])
        var registered: [APIClient] = []
        for client in 0..<clients {
            registered.append(try await server.client.register(plan.name(client), password: "soak password \(client)"))
        }
        let users = registered
        for client in 0..<clients {
            let group = "soak-g\(plan.group(client))"
            if client % 5 == 0 {
                _ = try await users[client].expect("POST", "/v1/groups", body: Data(#"{"name":"\#(group)","join":"open"}"#.utf8))
            } else {
                _ = try await users[client].expect("POST", "/v1/groups/\(group)/join")
            }
        }
        var starts: [String] = []
        for user in users { starts.append(try await user.expect("GET", "/v1/events").decode(EventBatch.self).cursor) }
        let cursors = starts

        let progress = Progress()
        let started = ContinuousClock.now
        async let killing = killLoop(server, progress: progress, total: plan.perClient * clients)
        async let feeds = readAll(users, cursors: cursors, plan: plan, sendsDone: progress)
        let outcomes = await sendAll(users, plan: plan, progress: progress)
        progress.finish()
        let sendSeconds = (ContinuousClock.now - started).seconds
        let faults = try await killing
        let logs = await feeds

        var answered: [String: Message] = [:]
        var givenUp: [String] = []
        var retried = 0
        var failureKinds: [String: Int] = [:]
        for (id, outcome) in outcomes {
            if let message = outcome.message { answered[id] = message } else { givenUp.append(id) }
            retried += outcome.attempts - 1
            for failure in outcome.failures { failureKinds[failure, default: 0] += 1 }
        }
        report.figure("clients", clients)
        report.figure("messages sent", outcomes.count)
        report.figure("answered", answered.count)
        let slowest = outcomes.map(\.1.slowestFailure).max() ?? .zero
        report.figure("slowest failed attempt", String(format: "%.2f s", slowest.seconds))
        report.figure("retries", "\(retried) (\(failureKinds.sorted { $0.value > $1.value }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")))")
        report.figure("kills", "\(faults.serverDowntimes.count) of the server (restart "
            + "\(Self.spread(faults.serverDowntimes))), \(faults.databaseDowntimes.count) of the database")
        if store.restartable {
            report.figure("database restarts", "down \(Self.spread(faults.databaseDowntimes)); the server answered "
                + "sends again \(Self.spread(faults.recoveries)) after the database took logins again")
        }
        report.figure("send phase", String(format: "%.1f s, %.0f messages/s", sendSeconds, Double(answered.count) / max(sendSeconds, 0.001)))
        report.check(faults.rounds == kills, "\(faults.rounds) of \(kills) kills happened")
        // While anything is down a client gets an answer it can act on, soon: 503 with the
        // envelope and Retry-After, or a refused or cut connection; never a hang or a 500.
        let unclear = failureKinds.keys.filter {
            !["503 UNAVAILABLE", "cannotConnect", "connectionLost"].contains($0)
        }
        report.check(unclear.isEmpty, "unclear answers while down: \(unclear.sorted().joined(separator: ", "))")
        report.check(givenUp.isEmpty, "\(givenUp.count) sends given up: \(HistoryAudit.sample(givenUp))")
        for problem in faults.problems { report.fail("after a kill: \(problem)") }

        // What is stored, read as a member of each conversation.
        var histories: [String: [Message]] = [:]
        var members: [String: [Int]] = [:]
        for client in 0..<clients {
            let group = "group:soak-g\(plan.group(client))"
            if client % 5 == 0 { histories[group] = try await users[client].history(group) }
            members[group, default: []].append(client)
            let partner = plan.partner(client)
            let direct = "\(plan.name(min(client, partner)))↔\(plan.name(max(client, partner)))"
            if partner >= client { histories[direct] = try await users[client].history("user:\(plan.name(partner))") }
            members[direct, default: []].append(client)
        }
        let audit = HistoryAudit(histories: histories, answered: answered)
        report.figure("stored", audit.stored)
        report.figure("lost", audit.lost.count)
        report.figure("duplicated", audit.duplicated.count)
        report.check(audit.lost.isEmpty, "\(audit.lost.count) answered sends not stored: \(HistoryAudit.sample(audit.lost))")
        report.check(audit.duplicated.isEmpty, "\(audit.duplicated.count) stored twice: \(HistoryAudit.sample(audit.duplicated))")
        report.check(audit.unanswered.isEmpty, "\(audit.unanswered.count) stored but never answered: \(HistoryAudit.sample(audit.unanswered))")
        report.check(audit.seqHoles.isEmpty, "seqs with holes: \(audit.seqHoles.joined(separator: "; "))")

        // What each member's feed delivered, against what is stored.
        let (gaps, disorders) = HistoryAudit.feedProblems(histories: histories, members: members, logs: logs)
        for (reader, log) in logs.enumerated() {
            for answer in log.wrongAnswers { report.fail("the feed of \(plan.name(reader)) answered \(answer)") }
        }
        report.figure("feeds", "\(logs.count) long-polling through the kills: \(logs.map(\.polls).reduce(0, +)) polls, "
            + "\(logs.map(\.lostPolls).reduce(0, +)) lost to a kill, \(logs.map(\.repeats).reduce(0, +)) repeated events dropped")
        report.figure("feed gaps", gaps)
        report.check(gaps == 0, "\(gaps) stored messages never reached a member's feed")
        report.check(disorders == 0, "\(disorders) feeds delivered a conversation out of order")

        await server.stop()
        if let problem = await store.integrityProblem() { report.fail("at the end: \(problem)") }
        report.figure("integrity checks", "\(faults.rounds + 1), after every kill and at the end")
        await transport.shutdown()
    }

    /// What the kill loop did and found.
    struct Faults: Sendable {
        /// How long each server kill kept it from serving (kill to `/healthz`).
        var serverDowntimes: [Double] = []
        /// Database restarts: how long the database was down (to the start of its crash
        /// recovery), and from its taking logins again to the first send the server answered (it is not restarted: it recovers alone).
        var databaseDowntimes: [Double] = []
        var recoveries: [Double] = []
        var problems: [String] = []
        var rounds: Int { serverDowntimes.count + databaseDowntimes.count }
    }

    /// At `kills` random points of the send count: kills the server and starts it again,
    /// or, on a store with a database of its own, every other time stops the database as
    /// a crash would and starts it again under the running server.
    private func killLoop(_ server: ServerUnderTest, progress: Progress, total: Int) async throws -> Faults {
        var random = SeededRandom(seed: seed)
        let points = (0..<kills).map { _ in Int(Double(total) * Double.random(in: 0.05...0.95, using: &random)) }.sorted()
        var faults = Faults()
        for (round, point) in points.enumerated() {
            guard await progress.wait(for: point) else { break }
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...250, using: &random)))
            let down = ContinuousClock.now
            if store.restartable, round % 2 == 0 {
                try await store.stopDatabase()
                try await Task.sleep(for: .milliseconds(Int.random(in: 500...2000, using: &random)))
                faults.databaseDowntimes.append((ContinuousClock.now - down).seconds)
                try await store.startDatabase()
                let back = ContinuousClock.now
                let answered = progress.value
                // The server was left running: it must answer sends again by itself.
                while progress.value == answered, !progress.isFinished, ContinuousClock.now - back < .seconds(60) {
                    try await Task.sleep(for: .milliseconds(5))
                }
                if progress.value == answered, !progress.isFinished {
                    faults.problems.append("no send answered within 60 s of the database's restart")
                }
                faults.recoveries.append((ContinuousClock.now - back).seconds)
                if let problem = await store.integrityProblem() { faults.problems.append(problem) }
            } else {
                try await server.crash()
                if let problem = await server.store.integrityProblem() { faults.problems.append(problem) }
                try await server.restart()
                faults.serverDowntimes.append((ContinuousClock.now - down).seconds)
            }
        }
        return faults
    }

    /// `max 0.21 s, mean 0.19 s`, or `-`.
    private static func spread(_ seconds: [Double]) -> String {
        seconds.isEmpty ? "-" : String(format: "max %.2f s, mean %.2f s", seconds.max() ?? 0,
                                       seconds.reduce(0, +) / Double(seconds.count))
    }

    private func sendAll(_ users: [APIClient], plan: Plan, progress: Progress) async -> [(String, SendOutcome)] {
        await withTaskGroup(of: [(String, SendOutcome)].self) { group in
            for (client, user) in users.enumerated() {
                group.addTask {
                    var outcomes: [(String, SendOutcome)] = []
                    for index in 0..<plan.perClient {
                        let id = plan.clientMessageID(client, index)
                        let outcome = await user.sendRetrying("\(id) from \(plan.name(client))", to: plan.address(client, index),
                                                              clientMessageID: id)
                        if outcome.message != nil { progress.add() }
                        outcomes.append((id, outcome))
                    }
                    return outcomes
                }
            }
            var all: [(String, SendOutcome)] = []
            for await outcomes in group { all += outcomes }
            return all
        }
    }

    private func readAll(_ users: [APIClient], cursors: [String], plan: Plan, sendsDone: Progress) async -> [FeedLog] {
        await withTaskGroup(of: (Int, FeedLog).self) { group in
            for (reader, user) in users.enumerated() {
                let expected = plan.expected(reader)
                group.addTask {
                    // Once the sends are done, a feed has two minutes to catch up.
                    let log = await readFeed(user, from: cursors[reader]) { seen in
                        seen >= expected || sendsDone.finishedFor > .seconds(120)
                    }
                    return (reader, log)
                }
            }
            var logs = [FeedLog](repeating: FeedLog(), count: users.count)
            for await (reader, log) in group { logs[reader] = log }
            return logs
        }
    }
}
