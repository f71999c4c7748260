/// A bot account's lease: which runner runs the bot now, until when, and the fencing
/// number its journal writes must carry (`POST /v1/me/lease`).
///
/// Only the bot's own login (a bot account) may hold, renew or release it. The fencing
/// number grows by one each time a holder takes the lease afresh (never on a renewal), so
/// a runner that lost the bot, however late it notices, cannot write its journal again.
public struct BotLease: Codable, Sendable, Hashable {
    /// Who holds it: the runner's id as it gave it (not secret; shown to other runners).
    public var holder: String
    /// The number every journal write of this holding must carry.
    public var fence: Int64
    /// When it ends unless renewed, on the server's clock.
    public var expiresAt: Timestamp
    /// The time it was granted for, in milliseconds.
    public var ttlMilliseconds: Int64

    public init(holder: String, fence: Int64, expiresAt: Timestamp, ttlMilliseconds: Int64) {
        self.holder = holder
        self.fence = fence
        self.expiresAt = expiresAt
        self.ttlMilliseconds = ttlMilliseconds
    }

    enum CodingKeys: String, CodingKey {
        case holder, fence
        case expiresAt = "expires_at"
        case ttlMilliseconds = "ttl_ms"
    }
}

/// `POST /v1/me/lease`: take the bot's lease (no `fence`) or renew the holding `fence`
/// names.
public struct LeaseRequest: Codable, Sendable, Hashable {
    /// The runner asking: 1 to 128 printable ASCII characters.
    public var holder: String
    /// How long the lease lasts from now, in milliseconds (`Limits.leaseMilliseconds`).
    public var ttlMilliseconds: Int64
    /// The holding to renew; absent to take the lease.
    public var fence: Int64?

    public init(holder: String, ttlMilliseconds: Int64, fence: Int64? = nil) {
        self.holder = holder
        self.ttlMilliseconds = ttlMilliseconds
        self.fence = fence
    }

    enum CodingKeys: String, CodingKey {
        case holder, fence
        case ttlMilliseconds = "ttl_ms"
    }
}

/// `GET /v1/me/journal`: one page of the bot's journal as its runner last left it. The
/// server keeps the texts as they were given and reads none of them.
///
/// The first page (no `after`) carries the snapshot; every page carries records in order
/// (at most `limit`, and `Limits.journalPageBytes` of them unless one alone is more) and
/// `next_after`, the `after` of the next page, nil on the last. A reader that finds
/// `compacted_through` changed between its pages (a snapshot replaced the records
/// meanwhile) starts again.
public struct StoredJournalBody: Codable, Sendable, Hashable {
    /// The last snapshot; nil before the first compaction, and on pages after the first.
    public var snapshot: String?
    /// Records appended after it, in order: this page's.
    public var records: [String]
    /// What the records take against the journal's limit: their UTF-8 bytes and
    /// `Limits.journalRecordOverhead` each (all of them, not this page's).
    public var recordBytes: Int
    /// UTF-8 bytes of the snapshot.
    public var snapshotBytes: Int
    /// How many records the journal holds (all of them).
    public var recordCount: Int?
    /// Where the next page starts (`?after=`); nil when this page is the last.
    public var nextAfter: Int64?
    /// The number of the last record the snapshot replaced (0: none yet).
    public var compactedThrough: Int64?

    public init(
        snapshot: String?, records: [String], recordBytes: Int, snapshotBytes: Int, recordCount: Int? = nil,
        nextAfter: Int64? = nil, compactedThrough: Int64? = nil
    ) {
        self.snapshot = snapshot
        self.records = records
        self.recordBytes = recordBytes
        self.snapshotBytes = snapshotBytes
        self.recordCount = recordCount
        self.nextAfter = nextAfter
        self.compactedThrough = compactedThrough
    }

    enum CodingKeys: String, CodingKey {
        case snapshot, records
        case recordBytes = "record_bytes"
        case snapshotBytes = "snapshot_bytes"
        case recordCount = "record_count"
        case nextAfter = "next_after"
        case compactedThrough = "compacted_through"
    }
}

/// `POST /v1/me/journal/records`: records to append, under the holding `fence` names.
public struct JournalAppendRequest: Codable, Sendable, Hashable {
    public var fence: Int64
    public var records: [String]

    public init(fence: Int64, records: [String]) {
        self.fence = fence
        self.records = records
    }
}

/// `PUT /v1/me/journal/snapshot`: a new snapshot that replaces the old one and every
/// record, under the holding `fence` names.
public struct JournalSnapshotRequest: Codable, Sendable, Hashable {
    public var fence: Int64
    public var snapshot: String

    public init(fence: Int64, snapshot: String) {
        self.fence = fence
        self.snapshot = snapshot
    }
}

/// The journal's sizes after a write.
public struct JournalSizesBody: Codable, Sendable, Hashable {
    public var recordBytes: Int
    public var snapshotBytes: Int

    public init(recordBytes: Int, snapshotBytes: Int) {
        self.recordBytes = recordBytes
        self.snapshotBytes = snapshotBytes
    }

    enum CodingKeys: String, CodingKey {
        case recordBytes = "record_bytes"
        case snapshotBytes = "snapshot_bytes"
    }
}

extension Limits {
    /// A lease lasts 1 s to 10 min from its taking or last renewal.
    public static let leaseMilliseconds: ClosedRange<Int64> = 1_000...600_000
    /// A lease holder's name: printable ASCII.
    public static let leaseHolderLength = 1...128
    /// The largest body of one journal write (a batch of records, or a snapshot).
    public static let journalRequestBytes = 4 << 20
    /// The most a bot's journal may hold, snapshot and records together.
    public static let journalBytes = 16 << 20
    /// The most records one append may carry.
    public static let journalRecordsPerAppend = 10_000
    /// The most records a bot's journal may hold; a snapshot empties it.
    public static let journalRecords = 100_000
    /// What each record counts against `journalBytes` besides its text: its row and key
    /// take about this much, so empty records are not free.
    public static let journalRecordOverhead = 64
    /// Records one page of `GET /v1/me/journal` carries at most (`limit`, default the most).
    public static let journalPageRecords = 1...10_000
    /// Bytes of records one page carries at most (at least one record).
    public static let journalPageBytes = 4 << 20
}
