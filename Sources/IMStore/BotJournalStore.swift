import IMProtocol

/// A bot account's lease as stored: who holds it (nil once released), its fencing
/// number, and when it ends (milliseconds of the store's clock).
public struct LeaseRecord: Sendable, Equatable {
    public var holder: String?
    public var fence: Int64
    public var expiresAt: Int64

    public init(holder: String?, fence: Int64, expiresAt: Int64) {
        self.holder = holder
        self.fence = fence
        self.expiresAt = expiresAt
    }
}

/// What asking for a lease came to.
public enum LeaseOutcome: Sendable, Equatable {
    /// The caller holds it until `expiresAt`, under `fence`.
    case granted(LeaseRecord)
    /// Another holder has it until `expiresAt` (taking it).
    case held(LeaseRecord)
    /// The holding the caller named is over: another holder took the lease since, or it
    /// was released (renewing it).
    case lost
}

/// A bot's journal as stored, or one page of it: the snapshot, records after it in order,
/// and the sizes of the whole.
public struct StoredJournal: Sendable, Equatable {
    public var snapshot: String?
    public var records: [String]
    /// The records' UTF-8 bytes and `Limits.journalRecordOverhead` each: what they count
    /// against the journal's limit.
    public var recordBytes: Int
    public var snapshotBytes: Int
    public var recordCount: Int
    /// On a page: the number of its last record when more follow.
    public var nextAfter: Int64?
    /// The number of the last record a snapshot replaced (numbers never go back).
    public var compactedThrough: Int64

    public init(
        snapshot: String? = nil, records: [String] = [], recordBytes: Int = 0, snapshotBytes: Int = 0,
        recordCount: Int = 0, nextAfter: Int64? = nil, compactedThrough: Int64 = 0
    ) {
        self.snapshot = snapshot
        self.records = records
        self.recordBytes = recordBytes
        self.snapshotBytes = snapshotBytes
        self.recordCount = recordCount
        self.nextAfter = nextAfter
        self.compactedThrough = compactedThrough
    }
}

extension StoredJournal {
    /// What `records` count against the journal's limit.
    static func cost(of records: [String]) -> Int {
        records.reduce(0) { $0 + $1.utf8.count + Limits.journalRecordOverhead }
    }

    /// The sizes of a journal of these sizes once `records` are appended; `.overBudget`
    /// when they would take it past `limit` bytes, `.tooManyRecords` past
    /// `Limits.journalRecords` (the store then writes nothing).
    func appending(_ records: [String], limit: Int) throws -> StoredJournal {
        let added = Self.cost(of: records)
        let used = snapshotBytes + recordBytes
        guard used + added <= limit else { throw StoreError.overBudget(used: used, limit: limit) }
        guard recordCount + records.count <= Limits.journalRecords else {
            throw StoreError.tooManyRecords(limit: Limits.journalRecords)
        }
        return StoredJournal(
            recordBytes: recordBytes + added, snapshotBytes: snapshotBytes, recordCount: recordCount + records.count,
            compactedThrough: compactedThrough)
    }

    /// The sizes of a journal that `snapshot` replaces with every record up to
    /// `lastRecord`; `.overBudget` when the snapshot alone passes `limit`.
    static func replaced(by snapshot: String, through lastRecord: Int64, limit: Int) throws -> StoredJournal {
        let bytes = snapshot.utf8.count
        guard bytes <= limit else { throw StoreError.overBudget(used: 0, limit: limit) }
        return StoredJournal(recordBytes: 0, snapshotBytes: bytes, recordCount: 0, compactedThrough: lastRecord)
    }

    /// Makes this (the journal's sizes and snapshot) the page of `rows` (numbered records
    /// after the page's start, in order, at least one more than `limit` when more follow):
    /// at most `limit` records and `Limits.journalPageBytes` of them, at least one.
    func page(of rows: [(seq: Int64, data: String)], limit: Int) -> StoredJournal {
        var page = self
        var bytes = 0
        page.records = []
        for (index, row) in rows.enumerated() {
            if index == limit || (!page.records.isEmpty && bytes + row.data.utf8.count > Limits.journalPageBytes) {
                page.nextAfter = rows[index - 1].seq
                break
            }
            page.records.append(row.data)
            bytes += row.data.utf8.count
        }
        return page
    }
}

/// Bot runners' leases and journals, kept for the bot accounts so that any runner can
/// take a bot over (docs/architecture.md, "Several runners"). The store reads none of the
/// journal's texts; it keeps them in order and counts their bytes.
///
/// Times are the store's clock. A lease is one row per bot account with a fencing number
/// that only grows: taking the lease afresh adds one, renewing keeps it. Every journal
/// write names the fencing number it was granted and is refused with `.leaseLost`, writing
/// nothing, when that is not the current holding, in the same transaction.
public protocol BotJournalStore: Sendable {
    /// Takes the lease of `userID` for `holder` for `ttl` milliseconds: granted when nobody
    /// holds it, its holding ended, or `holder` itself held it (a restarted holder takes
    /// it again, under a new fencing number); otherwise `.held` with the current holding.
    func acquireLease(_ userID: UserID, holder: String, ttl: Int64) async throws -> LeaseOutcome

    /// Extends the holding `fence` by `ttl` milliseconds from now, even past its end when
    /// nobody took the lease since; `.lost` when it is not the current holding of `holder`.
    func renewLease(_ userID: UserID, holder: String, fence: Int64, ttl: Int64) async throws -> LeaseOutcome

    /// Ends the holding `fence` at once (another runner may take the bot); false when it
    /// was not the current one (nothing changes).
    func releaseLease(_ userID: UserID, fence: Int64) async throws -> Bool

    /// The current lease, if the account ever had one.
    func lease(of userID: UserID) async throws -> LeaseRecord?

    /// One page of the journal of `userID` (empty when nothing was ever written): with
    /// `after` nil the snapshot and the first records, else the records after number
    /// `after`; at most `limit` records (see `StoredJournal.page`).
    func journal(of userID: UserID, after: Int64?, limit: Int) async throws -> StoredJournal

    /// Appends `records` after the stored ones under the holding `fence`. `.leaseLost`
    /// when it is not the current holding; `.overBudget` when the journal would pass
    /// `limit` bytes (each record counting `Limits.journalRecordOverhead` besides its
    /// text), `.tooManyRecords` past `Limits.journalRecords` (nothing is written).
    func appendJournal(_ userID: UserID, fence: Int64, records: [String], limit: Int) async throws -> StoredJournal

    /// Replaces the snapshot with `snapshot` and drops every record, under the holding
    /// `fence` (errors as ``appendJournal(_:fence:records:limit:)``).
    func replaceJournalSnapshot(_ userID: UserID, fence: Int64, snapshot: String, limit: Int) async throws
        -> StoredJournal
}

extension BotJournalStore {
    /// The whole journal of `userID`, read page by page (for tests and tools: a runner
    /// reads the pages over HTTP).
    public func journal(of userID: UserID) async throws -> StoredJournal {
        var whole = try await journal(of: userID, after: nil, limit: Limits.journalPageRecords.upperBound)
        while let after = whole.nextAfter {
            let page = try await journal(of: userID, after: after, limit: Limits.journalPageRecords.upperBound)
            whole.records += page.records
            whole.nextAfter = page.nextAfter
        }
        return whole
    }
}

extension LeaseRecord {
    /// What taking the lease for `holder` comes to when it stands as `self` (nil: never
    /// taken) at `now`: the rule both stores apply inside their transaction.
    static func acquiring(_ current: LeaseRecord?, holder: String, ttl: Int64, now: Int64) -> LeaseOutcome {
        if let current, let owner = current.holder, owner != holder, current.expiresAt > now {
            return .held(current)
        }
        return .granted(LeaseRecord(holder: holder, fence: (current?.fence ?? 0) + 1, expiresAt: now + ttl))
    }

    /// What renewing the holding `fence` of `holder` comes to.
    static func renewing(_ current: LeaseRecord?, holder: String, fence: Int64, ttl: Int64, now: Int64)
        -> LeaseOutcome
    {
        guard let current, current.fence == fence, current.holder == holder else { return .lost }
        return .granted(LeaseRecord(holder: holder, fence: fence, expiresAt: now + ttl))
    }

    /// Whether a journal write under `fence` may go ahead.
    static func admits(_ current: LeaseRecord?, fence: Int64) -> Bool {
        guard let current else { return false }
        return current.fence == fence && current.holder != nil
    }
}
