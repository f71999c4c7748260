import Foundation
import IMClient
import IMProtocol

/// Scenario (c): the server's data folder fills up, then turns read-only, while clients
/// send. The folder is a small ext4 file system on a loop device (see `LoopDisk`).
///
/// Passes when every refused send is refused with the error envelope (503 `UNAVAILABLE`
/// and a `Retry-After`, as the API documents for storage that cannot be written), reads
/// and the process carry on, sends succeed again once space returns without a restart,
/// the database passes SQLite's integrity check after the read-only file system is
/// repaired, and in the end every answered send is stored exactly once.
struct StorageFaultScenario: Scenario {
    static let name = "storage"
    static let summary = "the data folder fills up, then turns read-only, mid-run: clear errors, nothing corrupted, service back"

    let senders: Int
    let binary: String
    let work: String
    let mebibytes: Int

    init(options: Options) throws {
        senders = max(1, try options.int("senders", full: 5, quick: 5))
        mebibytes = try options.int("disk-mib", full: 64, quick: 64)
        binary = options.binary
        work = try options.workFolder()
        if options.string("store", default: "sqlite") != "sqlite" {
            throw SoakFailure("--store: the storage scenario fills the server's own data folder; it runs on sqlite only")
        }
    }

    /// Sends with ids `prefix-sender-index`, once each (no retry), from every sender at once.
    private func burst(_ users: [APIClient], _ prefix: String, count: Int) async -> [(id: String, answer: APIClient.Answer?)] {
        let text = String(repeating: "x", count: 2000)
        return await withTaskGroup(of: [(String, APIClient.Answer?)].self) { group in
            for (sender, user) in users.enumerated() {
                group.addTask {
                    var answers: [(String, APIClient.Answer?)] = []
                    for index in 0..<count {
                        let id = "\(prefix)-\(sender)-\(index)"
                        let body = SendMessageRequest(text: "\(id) \(text)", clientMessageID: id)
                        answers.append((id, try? await user.send("POST", "/v1/conversations/group:disk/messages", json: body,
                                                                  timeout: .seconds(30))))
                    }
                    return answers
                }
            }
            var all: [(String, APIClient.Answer?)] = []
            for await answers in group { all += answers }
            return all
        }
    }

    /// Tallies a burst by answer (`201`, `503 UNAVAILABLE`, …) into the report, checks every
    /// refusal is the documented one, and returns the answered messages and refused ids.
    private func tally(_ phase: String, _ answers: [(id: String, answer: APIClient.Answer?)], into report: inout Report)
        -> (answered: [String: Message], refused: [String])
    {
        var answered: [String: Message] = [:]
        var refused: [String] = []
        var kinds: [String: Int] = [:]
        for (id, answer) in answers {
            guard let answer else {
                kinds["no answer", default: 0] += 1
                refused.append(id)
                continue
            }
            kinds[answer.summary, default: 0] += 1
            if (200...201).contains(answer.status), let message = try? answer.decode(Message.self) {
                answered[id] = message
            } else {
                refused.append(id)
                report.check(answer.status == 503 && answer.error?.code == .unavailable && answer.retryAfter != nil,
                             "\(phase): a send was refused with \(answer.summary)\(answer.retryAfter == nil ? " and no Retry-After" : "")"
                             + ": \(String(decoding: answer.body.prefix(200), as: UTF8.self))")
            }
        }
        report.figure(phase, kinds.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))
        return (answered, refused)
    }

    func run(_ report: inout Report) async throws {
        let transport = CurlTransport()
        let disk = try await LoopDisk.make(in: work, mebibytes: mebibytes)
        let store = SQLiteSoakStore(directory: disk.mountPoint + "/data")
        report.figure("file system", "ext4, \(mebibytes) MiB, on a loop device")
        let server = try await ServerUnderTest(binary: binary, store: store, work: work, transport: transport,
                                               settings: ["durability: full", "rate_limits: { enabled: false }"])
        var registered: [APIClient] = []
        for sender in 0..<senders {
            registered.append(try await server.client.register("disk-u\(sender)", password: "soak password \(sender)"))
        }
        let users = registered
        _ = try await users[0].expect("POST", "/v1/groups", body: Data(#"{"name":"disk","join":"open"}"#.utf8))
        for user in users.dropFirst() { _ = try await user.expect("POST", "/v1/groups/disk/join") }

        var answered: [String: Message] = [:]
        let baseline = tally("before", await burst(users, "before", count: 20), into: &report)
        answered.merge(baseline.answered) { first, _ in first }
        report.check(baseline.refused.isEmpty, "\(baseline.refused.count) sends refused before any fault")

        // The disk fills up.
        let filler = try disk.fill()
        let full = tally("disk full", await burst(users, "full", count: 20), into: &report)
        answered.merge(full.answered) { first, _ in first }
        report.check(!full.refused.isEmpty, "the full disk refused no send: the filler did not fill it")
        await checkStillServing(users[0], server: server, phase: "disk full", into: &report)

        // Space returns: the refused sends go through on retry, without a restart.
        try FileManager.default.removeItem(atPath: filler)
        var retried = 0
        for id in full.refused {
            guard let sender = Int(id.split(separator: "-")[1]) else { continue }
            let outcome = await users[sender].sendRetrying("\(id) again", to: "group:disk", clientMessageID: id, patience: .seconds(60))
            if let message = outcome.message { answered[id] = message; retried += 1 }
        }
        report.figure("after space returns", "\(retried) of \(full.refused.count) refused sends answered on retry")
        report.check(retried == full.refused.count, "\(full.refused.count - retried) refused sends still fail after space returned")
        let after = tally("space back", await burst(users, "back", count: 10), into: &report)
        answered.merge(after.answered) { first, _ in first }
        report.check(after.refused.isEmpty, "\(after.refused.count) new sends refused after space returned")

        // The file system turns read-only under the server.
        try await disk.abort()
        let readOnly = tally("read-only", await burst(users, "ro", count: 10), into: &report)
        answered.merge(readOnly.answered) { first, _ in first }
        report.check(!readOnly.refused.isEmpty, "the read-only file system refused no send")
        await checkStillServing(users[0], server: server, phase: "read-only", into: &report)

        // Repair: stop the server, check and remount the file system, check the database,
        // start again on the same data, and retry what was refused.
        let exit = await server.stop(patience: .seconds(20))
        report.figure("stop on read-only disk", "exit status \(exit)")
        try await disk.unmount()
        let repair = try await disk.repair()
        report.figure("e2fsck", repair.split(separator: "\n").last.map(String.init) ?? "")
        try await disk.mount()
        if let problem = await store.integrityProblem() { report.fail("after the read-only file system: \(problem)") }
        try await server.restart()
        let stored = Set(try await users[0].history("group:disk").compactMap(\.clientMessageID))
        let refusedButStored = readOnly.refused.filter(stored.contains) + full.refused.filter { stored.contains($0) && answered[$0] == nil }
        report.figure("refused yet stored", "\(refusedButStored.count) (the retry below answers them with the stored message)")
        var recovered = 0
        for id in readOnly.refused {
            guard let sender = Int(id.split(separator: "-")[1]) else { continue }
            let outcome = await users[sender].sendRetrying("\(id) again", to: "group:disk", clientMessageID: id, patience: .seconds(60))
            if let message = outcome.message { answered[id] = message; recovered += 1 }
        }
        report.check(recovered == readOnly.refused.count, "\(readOnly.refused.count - recovered) sends refused while read-only still fail after repair")

        let audit = HistoryAudit(histories: ["group:disk": try await users[0].history("group:disk")], answered: answered)
        report.figure("answered sends", answered.count)
        report.figure("lost", audit.lost.count)
        report.figure("duplicated", audit.duplicated.count)
        report.check(audit.lost.isEmpty, "\(audit.lost.count) answered sends not stored: \(HistoryAudit.sample(audit.lost))")
        report.check(audit.duplicated.isEmpty, "\(audit.duplicated.count) stored twice: \(HistoryAudit.sample(audit.duplicated))")
        report.check(audit.seqHoles.isEmpty, "seqs with holes: \(audit.seqHoles.joined(separator: "; "))")
        await server.stop()
        if let problem = await store.integrityProblem() { report.fail("at the end: \(problem)") }
        try await disk.unmount()
        try? FileManager.default.removeItem(atPath: disk.image)
        await transport.shutdown()
    }

    /// Reads, health and the process itself must carry on while writes fail.
    private func checkStillServing(_ user: APIClient, server: ServerUnderTest, phase: String, into report: inout Report) async {
        let health = try? await user.send("GET", "/healthz")
        let history = try? await user.send("GET", "/v1/conversations/group:disk/messages?limit=5")
        report.figure("\(phase): reads", "healthz \(health?.summary ?? "no answer"), history \(history?.summary ?? "no answer")")
        report.check(server.process.isRunning, "\(phase): the server exited (\(server.process.exitStatus ?? -1)); see \(server.logPath)")
        report.check(health?.status == 200, "\(phase): /healthz answered \(health?.summary ?? "nothing")")
        report.check(history?.status == 200, "\(phase): reading history answered \(history?.summary ?? "nothing")")
    }
}
