// The floor: what SQLite itself needs for the rows a send writes, with no Switchboard
// code in the write loop, to set the store's writer against.
//
// The database is the store's own: `SQLiteStore` creates it (its migrations, so the same
// tables, indexes, triggers and foreign keys) with the same users, conversations and
// members as the store's part, and is closed; this then opens the file straight on the
// sqlite3 C API with the writer's settings (WAL, `synchronous`, foreign keys on, the same
// cache) and, on one thread, writes what a chat send writes (`SQLiteStore.appendMessage`):
//
// - the sender's row of `message_quotas` (`MessageQuota.chargeSQL`), when a quota is set;
// - the message (`messages`, with its unique `(conversation_id, seq)` index);
// - its conversation's last number, last message and time (`conversations`);
// - the sender's read marker and last post (`members`);
// - the conversation's event (`conversation_events` and its index by conversation);
//
// and per batch the feed position (`meta`), between `BEGIN IMMEDIATE` and `COMMIT`, with
// the statements prepared once and as many sends per commit as the store's writer just
// grouped. The conversations' last numbers and the feed position are kept in memory, as
// the writer's roster cache and position counter keep them. Checkpoints run as the
// store's do (`FloorCheckpoints`), so the writing thread's CPU is comparable.
import BenchSupport
import CSQLite
import Foundation

/// One send's rows: who sends where.
struct FloorSender {
    var user: Int64
    var conversation: Int64
}

struct FloorRun {
    var sends = 0
    var seconds = 0.0
    var cpuMicrosecondsPerSend = 0.0
}

/// Writes the rows of sends into the database at `path` on the calling thread for
/// `seconds`, `batch` sends per transaction, round-robin over `senders`.
final class Floor {
    private let db: OpaquePointer
    private var statements: [OpaquePointer] = []
    private let quota: Int?
    private let without: Set<FloorCut>

    init(path: String, synchronous: String, quota: Int?, without: Set<FloorCut> = []) throws {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
            let handle
        else { throw BenchError("opening \(path)") }
        db = handle
        self.quota = quota
        self.without = without
        try exec(
            """
            PRAGMA journal_mode = WAL; PRAGMA synchronous = \(synchronous); PRAGMA foreign_keys = ON;
            PRAGMA temp_store = MEMORY; PRAGMA cache_size = -32000; PRAGMA wal_autocheckpoint = 0;
            """)
    }

    deinit {
        for statement in statements { sqlite3_finalize(statement) }
        sqlite3_close_v2(db)
    }

    private func exec(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw BenchError("\(String(cString: sqlite3_errmsg(db))): \(sql.prefix(60))")
        }
    }

    private func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK,
            let statement
        else { throw BenchError("\(String(cString: sqlite3_errmsg(db))): \(sql.prefix(60))") }
        statements.append(statement)
        return statement
    }

    private func integer(_ sql: String) throws -> Int64 {
        let statement = try prepare(sql)
        defer { sqlite3_reset(statement) }
        return sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int64(statement, 0) : 0
    }

    /// Runs one statement with its bound values; false when SQLite refused it.
    @inline(__always)
    private func run(_ statement: OpaquePointer) -> Bool {
        let rc = sqlite3_step(statement)
        sqlite3_reset(statement)
        return rc == SQLITE_DONE
    }

    func run(senders: [FloorSender], batch: Int, seconds: Int) throws -> FloorRun {
        let begin = try prepare("BEGIN IMMEDIATE")
        let commit = try prepare("COMMIT")
        let charge = try prepare(
            """
            INSERT INTO message_quotas AS q (user_id, day, bytes) SELECT ?1, ?2, ?3 WHERE ?3 <= ?4
            ON CONFLICT (user_id) DO UPDATE SET bytes = CASE WHEN q.day = ?2 THEN q.bytes + ?3 ELSE ?3 END, day = ?2
            WHERE CASE WHEN q.day = ?2 THEN q.bytes + ?3 ELSE ?3 END <= ?4
            """)
        let message = try prepare(
            """
            INSERT INTO messages (conversation_id, seq, type, sender_id, text, client_msg_id, reply_to, created_at, position)
            VALUES (?, ?, 'chat', ?, ?, NULL, NULL, ?, ?)
            """)
        let conversation = try prepare(
            "UPDATE conversations SET last_seq = ?, last_message_id = ?, updated_at = ? WHERE id = ?")
        let member = try prepare(
            "UPDATE members SET last_read_seq = ?, last_posted_at = ? WHERE conversation_id = ? AND user_id = ?")
        let event = try prepare(
            """
            INSERT INTO conversation_events (position, conversation_id, type, message_id, payload, created_at)
            VALUES (?, ?, 'message', ?, NULL, ?)
            """)
        let position = try prepare(
            "INSERT INTO meta (key, value) VALUES ('feed_position', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value")
        var lastSeq: [Int64: Int64] = [:]
        for sender in senders where lastSeq[sender.conversation] == nil {
            lastSeq[sender.conversation] = try integer(
                "SELECT last_seq FROM conversations WHERE id = \(sender.conversation)")
        }
        let rowsBefore = try integer("SELECT (SELECT count(*) FROM messages) + (SELECT count(*) FROM conversation_events)")
        var nextPosition = try integer(
            "SELECT coalesce(CAST(value AS INTEGER), 0) FROM meta WHERE key = 'feed_position'") + 1

        let checkpoints = try FloorCheckpoints(writer: db)
        defer { checkpoints.stop() }
        let deadline = ContinuousClock.now + .seconds(seconds)
        let started = ContinuousClock.now
        let startedCPU = Self.threadCPUTime()
        var sent = 0
        var turn = 0
        var text = ""
        while ContinuousClock.now < deadline {
            guard run(begin) else { throw BenchError("BEGIN: \(String(cString: sqlite3_errmsg(db)))") }
            for _ in 0..<batch {
                let sender = senders[turn]
                turn = turn == senders.count - 1 ? 0 : turn + 1
                text = "message \(turn)-\(sent)"
                let now = Self.milliseconds()
                if let quota {
                    sqlite3_bind_int64(charge, 1, sender.user)
                    sqlite3_bind_int64(charge, 2, now / 86_400_000)
                    sqlite3_bind_int64(charge, 3, Int64(text.utf8.count + 256))
                    sqlite3_bind_int64(charge, 4, Int64(quota))
                    guard run(charge), sqlite3_changes(db) == 1 else { throw BenchError("quota refused") }
                }
                let seq = lastSeq[sender.conversation, default: 0] + 1
                lastSeq[sender.conversation] = seq
                sqlite3_bind_int64(message, 1, sender.conversation)
                sqlite3_bind_int64(message, 2, seq)
                sqlite3_bind_int64(message, 3, sender.user)
                _ = text.withUTF8 { utf8 in
                    utf8.withMemoryRebound(to: CChar.self) {
                        sb_sqlite3_bind_text(message, 4, $0.baseAddress, Int32($0.count))
                    }
                }
                sqlite3_bind_int64(message, 5, now)
                sqlite3_bind_int64(message, 6, nextPosition)
                guard run(message) else { throw BenchError("message: \(String(cString: sqlite3_errmsg(db)))") }
                let id = sqlite3_last_insert_rowid(db)
                sqlite3_bind_int64(conversation, 1, seq)
                sqlite3_bind_int64(conversation, 2, id)
                sqlite3_bind_int64(conversation, 3, now)
                sqlite3_bind_int64(conversation, 4, sender.conversation)
                sqlite3_bind_int64(member, 1, seq)
                sqlite3_bind_int64(member, 2, now)
                sqlite3_bind_int64(member, 3, sender.conversation)
                sqlite3_bind_int64(member, 4, sender.user)
                sqlite3_bind_int64(event, 1, nextPosition)
                sqlite3_bind_int64(event, 2, sender.conversation)
                sqlite3_bind_int64(event, 3, id)
                sqlite3_bind_int64(event, 4, now)
                nextPosition += 1
                guard run(conversation), without.contains(.readMarker) || run(member), run(event) else {
                    throw BenchError("send: \(String(cString: sqlite3_errmsg(db)))")
                }
                sent += 1
            }
            _ = String(nextPosition - 1).withCString { sb_sqlite3_bind_text(position, 1, $0, -1) }
            guard run(position), run(commit) else { throw BenchError("COMMIT: \(String(cString: sqlite3_errmsg(db)))") }
            checkpoints.committed()
        }
        let cpu = Self.threadCPUTime() - startedCPU
        let elapsed = started.duration(to: .now)
        // Every send wrote its message and its event.
        let rowsAfter = try integer("SELECT (SELECT count(*) FROM messages) + (SELECT count(*) FROM conversation_events)")
        guard rowsAfter - rowsBefore == 2 * Int64(sent) else {
            throw BenchError("the floor wrote \(rowsAfter - rowsBefore) messages and events for \(sent) sends")
        }
        return FloorRun(
            sends: sent,
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
            cpuMicrosecondsPerSend: Double(cpu) / 1e3 / Double(max(sent, 1)))
    }

    static func threadCPUTime() -> Int {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return time.tv_sec * 1_000_000_000 + time.tv_nsec
    }

    private static func milliseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }
}

/// What a trial leaves out of a send's rows, to see what each costs (`--without`).
enum FloorCut: String, CaseIterable {
    /// The sender's read marker and last post (`members`).
    case readMarker = "read-marker"
}

/// Checkpoints as the store's `Checkpointer` runs them: passive ones on a connection and
/// thread of their own, asked for each time the log has grown by 1,000 frames (SQLite's
/// WAL hook says by how much); past 8,000 frames the writing thread catches up itself
/// between transactions (a restart checkpoint, so the log starts over).
final class FloorCheckpoints: @unchecked Sendable {
    // @unchecked: `db` is used only by the checkpoint thread; `asked` and `stopped` only
    // under `condition`; `frames` and `askedAt` only on the writing thread.
    private let db: OpaquePointer
    private let writer: OpaquePointer
    private let condition = NSCondition()
    /// Held while a checkpoint runs, by either thread.
    private let running = NSLock()
    private var asked = false
    private var stopped = false
    private let done = DispatchSemaphore(value: 0)
    fileprivate var frames: Int32 = 0
    private var askedAt: Int32 = 0

    init(writer: OpaquePointer) throws {
        var handle: OpaquePointer?
        let path = String(cString: sqlite3_db_filename(writer, "main"))
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
            let handle
        else { throw BenchError("opening \(path) to checkpoint") }
        db = handle
        self.writer = writer
        sqlite3_busy_timeout(db, 5000)
        sqlite3_wal_hook(writer, floorWALHook, Unmanaged.passUnretained(self).toOpaque())
        let thread = Thread { [self] in
            while true {
                condition.lock()
                while !asked && !stopped { condition.wait() }
                let stop = stopped
                asked = false
                condition.unlock()
                if stop { break }
                running.withLock { _ = sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil) }
            }
            sqlite3_close_v2(db)
            done.signal()
        }
        thread.start()
    }

    /// After a commit on the writing connection.
    func committed() {
        if frames < askedAt { askedAt = 0 }
        if frames - askedAt >= 1000, frames < 8000 {
            askedAt = frames
            condition.lock()
            asked = true
            condition.signal()
            condition.unlock()
        }
        if frames >= 8000 {
            if frames >= 8500 { running.lock() } else if !running.try() { return }
            defer { running.unlock() }
            sqlite3_busy_timeout(writer, 0)
            if sqlite3_wal_checkpoint_v2(writer, nil, SQLITE_CHECKPOINT_RESTART, nil, nil) == SQLITE_OK {
                frames = 0
                askedAt = 0
            }
        }
    }

    func stop() {
        sqlite3_wal_hook(writer, nil, nil)
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
        done.wait()
    }
}

private func floorWALHook(
    context: UnsafeMutableRawPointer?, db: OpaquePointer?, name: UnsafePointer<CChar>?, frames: Int32
) -> Int32 {
    guard let context else { return SQLITE_OK }
    Unmanaged<FloorCheckpoints>.fromOpaque(context).takeUnretainedValue().frames = frames
    return SQLITE_OK
}
