import Foundation
import IMClient
import IMProtocol
import Synchronization

/// A bot's journal kept on the IM server (`runner.journal: server`), where any runner
/// that takes the bot's lease reads it on: `GET /v1/me/journal`, `POST
/// /v1/me/journal/records`, `PUT /v1/me/journal/snapshot`, over the bot's own login.
///
/// The store holds the bot from its creation, under the lease `fence` its
/// `BotLeaseKeeper` took, until ``release()``. Every write carries the fence; the server
/// refuses it with 409 `lease_lost` when another runner took the bot since, writing
/// nothing, and the store then calls `lost` (the keeper stops the bot at once) and
/// throws. Records are the same JSON lines `FileJournalStore` writes, kept by the server as
/// text. An append is committed on the server before it is answered, so ``sync()`` has
/// nothing left to do. Retries are the journal's (a failed batch is written again with
/// the next one), as for the folder.
final class ServerJournalStore: JournalStore {
    private let client: IMClient
    private let bot: String
    private let fence: Int64
    private let lost: @Sendable () -> Void
    private let state = Mutex(Sizes())
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    private struct Sizes {
        var records = 0
        var snapshot = 0
        var released = false
    }

    /// Records of one append carry at most this many bytes: half the server's request
    /// limit, leaving room for JSON's escaping of the lines' quotes (and at most
    /// `Limits.journalRecordsPerAppend` records).
    static let appendBytes = Limits.journalRequestBytes / 2

    /// - Parameters:
    ///   - client: the bot's own login (the keeper's).
    ///   - fence: the lease holding every write names.
    ///   - lost: called when the server says the holding is over.
    init(client: IMClient, bot: String, fence: Int64, lost: @escaping @Sendable () -> Void) {
        self.client = client
        self.bot = bot
        self.fence = fence
        self.lost = lost
    }

    var sizes: (records: Int, snapshot: Int) { state.withLock { ($0.records, $0.snapshot) } }

    func load() async throws(RunnerError) -> JournalContents {
        let stored = try await readWhole()
        var contents = JournalContents(snapshot: nil, records: [], warnings: [])
        let source = "the server's journal of bot \(bot)"
        if let snapshot = stored.snapshot {
            do {
                contents.snapshot = try JSONDecoder().decode(JournalState.self, from: Data(snapshot.utf8))
            } catch {
                contents.warnings.append("\(source): its snapshot could not be read (\(error)); starting fresh")
            }
        }
        for (index, line) in stored.records.enumerated() {
            guard let record = try JournalRecord.read(Data(line.utf8), source: source) else {
                contents.warnings.append("\(source): a damaged record (\(index + 1) of \(stored.records.count)) "
                                         + "and what follows were dropped")
                break
            }
            contents.records.append(record)
        }
        state.withLock { ($0.records, $0.snapshot) = (stored.recordBytes, stored.snapshotBytes) }
        return contents
    }

    /// The whole journal, page by page (`GET /v1/me/journal?after=`). Nothing else writes
    /// it while this runner holds the lease; should a snapshot replace the records between
    /// two pages all the same, the reading starts again (a few times at most).
    private func readWhole() async throws(RunnerError) -> StoredJournalBody {
        for _ in 0..<Self.readAttempts {
            do {
                var whole = try await client.journal()
                while let after = whole.nextAfter {
                    let page = try await client.journal(after: after)
                    guard page.compactedThrough == whole.compactedThrough else { break }
                    whole.records += page.records
                    whole.nextAfter = page.nextAfter
                }
                if whole.nextAfter == nil { return whole }
            } catch {
                throw RunnerError("bot \(bot): its journal cannot be read from the server: \(error.message)")
            }
        }
        throw RunnerError("bot \(bot): its journal kept changing while it was read from the server (another runner?)")
    }

    private static let readAttempts = 3

    func append(_ records: [JournalRecord]) async throws(RunnerError) {
        var batch: [String] = []
        var bytes = 0
        for record in records {
            let line: String
            do {
                var data = try record.line(encoder: encoder)
                data.removeLast()  // the newline: the server keeps records, not lines
                line = String(decoding: data, as: UTF8.self)
            } catch {
                throw RunnerError("bot \(bot): a journal record cannot be encoded: \(error)")
            }
            if !batch.isEmpty,
               bytes + line.utf8.count > Self.appendBytes || batch.count == Limits.journalRecordsPerAppend {
                try await write(batch)
                (batch, bytes) = ([], 0)
            }
            batch.append(line)
            bytes += line.utf8.count
        }
        if !batch.isEmpty { try await write(batch) }
    }

    func sync() async throws(RunnerError) {}

    func compact(to snapshot: JournalState) async throws(RunnerError) {
        let text: String
        do {
            text = String(decoding: try encoder.encode(snapshot), as: UTF8.self)
        } catch {
            throw RunnerError("bot \(bot): its state cannot be encoded: \(error)")
        }
        try requireHeld()
        let sizes = try await answer { [client, fence] () async throws(IMClientError) -> JournalSizesBody in
            try await client.replaceJournalSnapshot(fence: fence, snapshot: text)
        }
        state.withLock { ($0.records, $0.snapshot) = (sizes.recordBytes, sizes.snapshotBytes) }
    }

    /// Refuses every later write; the keeper gives the lease up once the bot has stopped.
    func release() async {
        state.withLock { $0.released = true }
    }

    private func write(_ lines: [String]) async throws(RunnerError) {
        try requireHeld()
        let sizes = try await answer { [client, fence] () async throws(IMClientError) -> JournalSizesBody in
            try await client.appendJournal(fence: fence, records: lines)
        }
        state.withLock { ($0.records, $0.snapshot) = (sizes.recordBytes, sizes.snapshotBytes) }
    }

    private func requireHeld() throws(RunnerError) {
        if state.withLock({ $0.released }) {
            throw RunnerError("bot \(bot): its journal was written after the bot was released")
        }
    }

    /// The server's answer to a write; a lost lease is reported to the keeper.
    private func answer(
        _ call: @Sendable () async throws(IMClientError) -> JournalSizesBody
    ) async throws(RunnerError) -> JournalSizesBody {
        do {
            return try await call()
        } catch where error.api?.reason == "lease_lost" {
            lost()
            throw RunnerError("bot \(bot): another runner took the bot over; this runner stops it")
        } catch {
            throw RunnerError("bot \(bot): its journal cannot be written to the server: \(error.message)")
        }
    }
}
