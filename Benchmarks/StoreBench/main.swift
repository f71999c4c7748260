// StoreBench: what a durable send costs the SQLite store alone, without HTTP: the
// ceiling under the server's send rate (FeedBench's throughput part) on this machine.
//
// 64 tasks append messages through `SQLiteStore.appendMessage` for `--seconds` each run
// (a fresh data folder per run, `synchronous = FULL` unless `--durability normal`):
// - one-to-one: 64 direct conversations of 128 users, each task sending in its own, as
//   FeedBench's 64 wrk connections do;
// - group: 64 tasks sending as the 50 members of one group.
// It reports sends per second, the process's CPU per send (both cores: the writer thread,
// the tasks, the hand-offs between them) and the writer thread's share. Each send is
// charged to its sender's daily message quota, as the server's are (`--quota` bytes a
// day, the server's default for people; `none`: no quota, to see what the quota costs).
//
//   .build/release/StoreBench [--seconds 6] [--durability full] [--quota 16777216|none]
import BenchSupport
import Foundation
import IMProtocol
import IMStore

let arguments = BenchArguments(known: ["seconds", "durability", "quota"])
let seconds = arguments.int("seconds", 6)
let quotaText = arguments.string("quota", String(16 << 20))
let quota = Int(quotaText).map { MessageQuota(bytesPerDay: $0) }
let durability = arguments.string("durability", "full")
let synchronous: SQLiteDatabase.Synchronous = durability == "normal" ? .normal : .full

struct Run {
    var sends = 0
    var cpuMicrosecondsPerSend = 0.0
    var writerMicrosecondsPerSend = 0.0
    var sendsPerBatch = 0.0
}

/// Opens a store in a fresh folder, lets `prepare` make its conversations (returning who
/// sends where, one pair per sending task), then sends from all tasks for `seconds`.
func measure(_ prepare: (SQLiteStore) async throws -> [(UserID, ConversationID)]) async throws -> Run {
    let directory = NSTemporaryDirectory() + "storebench-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let store = try SQLiteStore(directory: directory, synchronous: synchronous)
    let senders = try await prepare(store)
    let before = (cpu: ProcessStats.ownCPUSeconds, writer: store.writerStats)
    let deadline = ContinuousClock.now + .seconds(seconds)
    let total = try await withThrowingTaskGroup(of: Int.self) { group in
        for (index, (sender, conversation)) in senders.enumerated() {
            group.addTask {
                var sent = 0
                while ContinuousClock.now < deadline {
                    _ = try await store.appendMessage(
                        NewMessage(
                            conversationID: conversation, senderID: sender, text: "message \(index)-\(sent)", quota: quota))
                    sent += 1
                }
                return sent
            }
        }
        return try await group.reduce(0, +)
    }
    let cpu = ProcessStats.ownCPUSeconds - before.cpu
    let writer = store.writerStats
    await store.close()
    let sends = max(total, 1)
    return Run(
        sends: total,
        cpuMicrosecondsPerSend: cpu * 1e6 / Double(sends),
        writerMicrosecondsPerSend: Double(writer.cpuNanoseconds - before.writer.cpuNanoseconds) / 1e3 / Double(sends),
        sendsPerBatch: Double(writer.writes - before.writer.writes) / Double(max(writer.batches - before.writer.batches, 1)))
}

func user(_ store: SQLiteStore, _ name: String) async throws -> UserID {
    try await store.createUser(NewUser(username: name, passwordHash: "-", nickname: name)).user.id
}

func report(_ name: String, _ run: Run) {
    let rate = Double(run.sends) / Double(seconds)
    print("| \(name) | \(Int(rate)) sends/s; CPU per send \(String(format: "%.1f", run.cpuMicrosecondsPerSend)) µs, "
        + "the writer's \(String(format: "%.1f", run.writerMicrosecondsPerSend)) µs; "
        + "\(String(format: "%.1f", run.sendsPerBatch)) sends per commit |")
}

do {
    print("Machine: \(Machine.describe()) (load average \(Machine.loadAverage()) at the start). \(seconds) s per part, durability \(durability), quota \(quotaText) bytes a day.")
    print("")
    print("| the store alone, 64 sending tasks | result |")
    print("|---|---|")
    report("one-to-one sends, 64 conversations", try await measure { store in
        var senders: [(UserID, ConversationID)] = []
        for index in 0..<64 {
            let a = try await user(store, "a\(index)")
            let b = try await user(store, "b\(index)")
            senders.append((a, try await store.directConversation(a, b).id))
        }
        return senders
    })
    report("sends to a 50-member group", try await measure { store in
        var members: [UserID] = []
        for index in 0..<50 { members.append(try await user(store, "m\(index)")) }
        let group = try await store.createConversation(
            kind: .group, name: "g50", title: "g50", description: "", logoURL: "", creator: members[0])
        for (index, member) in members.enumerated() {
            _ = try await store.addMember(
                group.id, member, role: index == 0 ? .owner : .member,
                change: MembershipChange(event: .memberJoined, notice: nil))
        }
        return (0..<64).map { (members[$0 % 50], group.id) }
    })
} catch {
    FileHandle.standardError.write(Data("StoreBench failed: \(error)\n".utf8))
    exit(1)
}
