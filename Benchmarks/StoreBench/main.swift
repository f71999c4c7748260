// StoreBench: what a durable send costs the SQLite store alone, without HTTP: the
// ceiling under the server's send rate (FeedBench's throughput part) on this machine,
// and the floor under the store: what SQLite itself needs for the same rows.
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
// After each part, the floor (`Floor.swift`): the same rows written straight on the
// sqlite3 C API into a database the store made the same way, one thread, as many sends
// per commit as the store's writer grouped in the part just run (or `--batch`); the
// writing thread's CPU per send beside the writer's. `--rounds N` runs the pair N times,
// alternated; `--only store|floor` runs one of them, `--part one-to-one|group` one part;
// `--without read-marker` adds a trial of the floor with fewer rows per send
// (`FloorCut`). BENCHMARKS.md, "The floor under the store".
//
//   .build/release/StoreBench [--seconds 6] [--durability full] [--quota 16777216|none]
//                             [--rounds 1] [--batch N] [--only store|floor]
//                             [--part one-to-one|group] [--without LIST]
import BenchSupport
import Foundation
import IMProtocol
import IMStore

let arguments = BenchArguments(known: ["seconds", "durability", "quota", "rounds", "batch", "only", "without", "part"])
let seconds = arguments.int("seconds", 6)
let quotaText = arguments.string("quota", String(16 << 20))
let quota = Int(quotaText).map { MessageQuota(bytesPerDay: $0) }
let durability = arguments.string("durability", "full")
let synchronous: SQLiteDatabase.Synchronous = durability == "normal" ? .normal : .full
let rounds = arguments.int("rounds", 1)
let fixedBatch = arguments.string("batch", "").isEmpty ? nil : arguments.int("batch", 1)
let only = arguments.string("only", "")
guard ["", "store", "floor"].contains(only) else {
    FileHandle.standardError.write(Data("--only takes store or floor\n".utf8))
    exit(2)
}
let onlyPart = arguments.string("part", "")
guard ["", "one-to-one", "group"].contains(onlyPart) else {
    FileHandle.standardError.write(Data("--part takes one-to-one or group\n".utf8))
    exit(2)
}
let cutNames = arguments.string("without", "").split(separator: ",").map(String.init)
let cuts = Set(cutNames.compactMap(FloorCut.init(rawValue:)))
guard cuts.count == cutNames.count else {
    let known = FloorCut.allCases.map(\.rawValue).joined(separator: ", ")
    FileHandle.standardError.write(Data("--without takes a list of: \(known)\n".utf8))
    exit(2)
}

struct Run {
    var sends = 0
    var cpuMicrosecondsPerSend = 0.0
    var writerMicrosecondsPerSend = 0.0
    var sendsPerBatch = 0.0
}

typealias Prepare = (SQLiteStore) async throws -> [(UserID, ConversationID)]

/// A fresh data folder, removed after `body`.
func withFolder<T>(_ body: (String) async throws -> T) async throws -> T {
    let directory = NSTemporaryDirectory() + "storebench-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    return try await body(directory)
}

/// Opens a store in a fresh folder, lets `prepare` make its conversations (returning who
/// sends where, one pair per sending task), then sends from all tasks for `seconds`.
func measure(_ prepare: Prepare) async throws -> Run {
    try await withFolder { directory in try await measure(in: directory, prepare) }
}

func measure(in directory: String, _ prepare: Prepare) async throws -> Run {
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

/// The floor: a store in a fresh folder makes the same conversations and is closed, then
/// `Floor` writes the sends' rows into its file, `batch` sends per commit.
func measureFloor(batch: Int, without: Set<FloorCut> = [], _ prepare: Prepare) async throws -> FloorRun {
    try await withFolder { directory in
        let store = try SQLiteStore(directory: directory, synchronous: synchronous)
        let senders = try await prepare(store).map { FloorSender(user: $0.0.rawValue, conversation: $0.1.rawValue) }
        await store.close()
        let path = SQLiteStore.databasePath(in: directory)
        // On a thread of its own, as the store's writer runs, not on the cooperative pool.
        return try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result {
                    try Floor(path: path, synchronous: durability == "normal" ? "NORMAL" : "FULL", quota: quota?.bytesPerDay, without: without)
                        .run(senders: senders, batch: batch, seconds: seconds)
                })
            }
            thread.name = "floor-writer"
            thread.start()
        }
    }
}

func user(_ store: SQLiteStore, _ name: String) async throws -> UserID {
    try await store.createUser(NewUser(username: name, passwordHash: "-", nickname: name)).user.id
}

/// 64 direct conversations of 128 users, one task sending in each.
func oneToOne(_ store: SQLiteStore) async throws -> [(UserID, ConversationID)] {
    var senders: [(UserID, ConversationID)] = []
    for index in 0..<64 {
        let a = try await user(store, "a\(index)")
        let b = try await user(store, "b\(index)")
        senders.append((a, try await store.directConversation(a, b).id))
    }
    return senders
}

/// One group of 50; 64 tasks sending as its members.
func group(_ store: SQLiteStore) async throws -> [(UserID, ConversationID)] {
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
}

func report(_ name: String, _ run: Run) {
    let rate = Double(run.sends) / Double(seconds)
    print("| \(name) | \(Int(rate)) sends/s; CPU per send \(String(format: "%.1f", run.cpuMicrosecondsPerSend)) µs, "
        + "the writer's \(String(format: "%.1f", run.writerMicrosecondsPerSend)) µs; "
        + "\(String(format: "%.1f", run.sendsPerBatch)) sends per commit (load \(load())) |")
}

func report(_ name: String, _ run: FloorRun, batch: Int, store: Run?) {
    var ratio = ""
    if let store {
        ratio = String(format: "; the store's writer %.2f ×", store.writerMicrosecondsPerSend / run.cpuMicrosecondsPerSend)
    }
    let rate = Int(Double(run.sends) / run.seconds)
    let cpu = String(format: "%.1f", run.cpuMicrosecondsPerSend)
    print("| \(name) | \(rate) sends/s; the writing thread's CPU per send \(cpu) µs; \(batch) sends per commit\(ratio) (load \(load())) |")
}

/// The 1-minute load average now.
func load() -> String { String(Machine.loadAverage().split(separator: " ").first ?? "?") }

/// The store's part, then the floor with as many sends per commit as the store grouped.
func part(_ name: String, prepare: Prepare) async throws {
    var store: Run?
    if only != "floor" {
        let run = try await measure(prepare)
        report(name, run)
        store = run
    }
    if only != "store" {
        let batch = fixedBatch ?? max(1, Int((store?.sendsPerBatch ?? 33).rounded()))
        report("↳ the floor: the same rows on sqlite3 alone", try await measureFloor(batch: batch, prepare), batch: batch, store: store)
        if !cuts.isEmpty {
            let name = "↳ the floor without " + cutNames.joined(separator: ", ")
            report(name, try await measureFloor(batch: batch, without: cuts, prepare), batch: batch, store: store)
        }
    }
}

do {
    print("Machine: \(Machine.describe()) (load average \(Machine.loadAverage()) at the start). \(seconds) s per part, durability \(durability), quota \(quotaText) bytes a day.")
    print("")
    print("| the store alone, 64 sending tasks | result |")
    print("|---|---|")
    for _ in 0..<rounds {
        if onlyPart != "group" { try await part("one-to-one sends, 64 conversations", prepare: oneToOne) }
        if onlyPart != "one-to-one" { try await part("sends to a 50-member group", prepare: group) }
    }
} catch {
    FileHandle.standardError.write(Data("StoreBench failed: \(error)\n".utf8))
    exit(1)
}
