#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import IMClient
import IMProtocol
import Synchronization

/// A bot's journal in its state folder on this machine: `STATE/<bot>/state.json` (the
/// snapshot), `journal.jsonl` (one record a line, appended) and `lock`.
///
/// Records are appended with `write(2)` in whole lines, so a crash of the process loses
/// nothing written and a power loss at most the lines after the last ``sync()``; a torn
/// last line is dropped when the journal is read. A compaction writes a new snapshot
/// atomically, then empties the journal; records the snapshot already holds are skipped
/// by their sequence numbers if the second step never happened. Files are 0600 in a 0700
/// folder. Every blocking call runs on one dispatch queue shared by the runner's bots, not
/// on the cooperative thread pool: a queue per bot let a hundred bots starting at once
/// start a hundred threads, and each bot writes at most four times a second anyway.
final class FileJournalStore: JournalStore {
    let folder: String
    private let bot: String
    private let lock: FolderLock
    private let queue = FileJournalStore.queue
    private let state = Mutex(Files())
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// The queue every store's file work runs on.
    static let queue = DispatchQueue(label: "switchboard.journals")

    private struct Files {
        var journal: Int32?
        var released = false
        var recordBytes = 0
        var snapshotBytes = 0
    }

    var snapshotPath: String { folder + "/state.json" }
    var journalPath: String { folder + "/journal.jsonl" }

    /// Takes the bot's folder (creating it, 0700) and its lock; throws when another
    /// runner holds it or the folder cannot be used.
    init(folder: String, bot: String) throws(RunnerError) {
        self.folder = folder
        self.bot = bot
        try LocalFiles.makePrivateFolder((folder as NSString).deletingLastPathComponent)
        try LocalFiles.makePrivateFolder(folder)
        lock = try FolderLock(path: folder + "/lock", bot: bot)
    }

    var sizes: (records: Int, snapshot: Int) { state.withLock { ($0.recordBytes, $0.snapshotBytes) } }

    func load() async throws(RunnerError) -> JournalContents {
        try await perform { store throws(RunnerError) in try store.loadNow() }
    }

    func append(_ records: [JournalRecord]) async throws(RunnerError) {
        guard !records.isEmpty else { return }
        var lines = Data()
        for record in records {
            do {
                lines.append(try record.line(encoder: encoder))
            } catch {
                throw RunnerError("bot \(bot): a journal record cannot be encoded: \(error)")
            }
        }
        let batch = lines
        try await perform { store throws(RunnerError) in try store.appendNow(batch) }
    }

    func sync() async throws(RunnerError) {
        try await perform { store throws(RunnerError) in
            guard let fd = try store.openJournal() else { return }
            guard fsync(fd) == 0 else { throw RunnerError("cannot sync \(store.journalPath): \(SystemError.text())") }
        }
    }

    func compact(to snapshot: JournalState) async throws(RunnerError) {
        let data: Data
        do {
            data = try encoder.encode(snapshot)
        } catch {
            throw RunnerError("bot \(bot): its state cannot be encoded: \(error)")
        }
        try await perform { store throws(RunnerError) in
            guard let fd = try store.openJournal() else { return }
            try LocalFiles.replace(store.snapshotPath, with: data)
            guard ftruncate(fd, 0) == 0, fsync(fd) == 0 else {
                throw RunnerError("cannot empty \(store.journalPath): \(SystemError.text())")
            }
            store.state.withLock {
                $0.recordBytes = 0
                $0.snapshotBytes = data.count
            }
        }
    }

    func release() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { [self] in
                let fd = state.withLock { files -> Int32? in
                    files.released = true
                    defer { files.journal = nil }
                    return files.journal
                }
                if let fd {
                    fsync(fd)
                    close(fd)
                }
                lock.release()
                continuation.resume()
            }
        }
    }

    // MARK: On the store's queue

    private func perform<T: Sendable>(
        _ body: @escaping @Sendable (FileJournalStore) throws(RunnerError) -> T
    ) async throws(RunnerError) -> T {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, RunnerError>, Never>) in
            queue.async { [self] in
                do throws(RunnerError) {
                    continuation.resume(returning: .success(try body(self)))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    /// The open journal file; nil once released (nothing is written after the lock is given up).
    private func openJournal() throws(RunnerError) -> Int32? {
        let (fd, released) = state.withLock { ($0.journal, $0.released) }
        if released { return nil }
        if let fd { return fd }
        let opened = open(journalPath, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard opened >= 0 else { throw RunnerError("cannot open \(journalPath): \(SystemError.text())") }
        fchmod(opened, 0o600)
        state.withLock { $0.journal = opened }
        try LocalFiles.syncFolder(of: journalPath)
        return opened
    }

    private func appendNow(_ lines: Data) throws(RunnerError) {
        guard let fd = try openJournal() else {
            throw RunnerError("bot \(bot): its journal was written after the bot was released")
        }
        guard AtomicFile.writeAll(fd, lines) else {
            throw RunnerError("cannot append to \(journalPath): \(SystemError.text())")
        }
        state.withLock { $0.recordBytes += lines.count }
    }

    private func loadNow() throws(RunnerError) -> JournalContents {
        var contents = JournalContents(snapshot: nil, records: [], warnings: [])
        if let data = try LocalFiles.read(snapshotPath) {
            do {
                contents.snapshot = try JSONDecoder().decode(JournalState.self, from: data)
                state.withLock { $0.snapshotBytes = data.count }
            } catch {
                let aside = snapshotPath + ".damaged-\(UInt64.random(in: 0...UInt64.max) % 1_000_000_000)"
                rename(snapshotPath, aside)
                contents.warnings.append("\(snapshotPath) could not be read (\(error)); moved to \(aside), starting fresh")
            }
        }
        guard let data = try LocalFiles.read(journalPath) else { return contents }
        var good = 0
        for line in data.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast() {
            guard let record = try JournalRecord.read(line, source: journalPath) else {
                contents.warnings.append("\(journalPath): a damaged record at byte \(good) and what follows were dropped")
                break
            }
            contents.records.append(record)
            good += line.count + 1
        }
        if good < data.count {
            // A torn last line (the process died mid-write) would hide every later record.
            guard truncate(journalPath, off_t(good)) == 0 else {
                throw RunnerError("cannot cut the torn end off \(journalPath): \(SystemError.text())")
            }
            if contents.warnings.isEmpty, data.count - good > 0, data.last != 0x0A {
                contents.warnings.append("\(journalPath): an incomplete last record was dropped")
            }
        }
        state.withLock { $0.recordBytes = good }
        return contents
    }
}
