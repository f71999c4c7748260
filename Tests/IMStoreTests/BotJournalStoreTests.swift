import IMProtocol
import IMStore
import Testing

/// Bot runners' leases and journals, on both stores.
@Suite(.serialized) struct BotJournalStoreTests {
    static let ttl: Int64 = 10_000

    static func granted(_ outcome: LeaseOutcome) throws -> LeaseRecord {
        guard case .granted(let lease) = outcome else { throw StoreTestError("not granted: \(outcome)") }
        return lease
    }

    @Test(arguments: StoreKind.allCases) func aHeldLeaseIsRefusedToOthersUntilItEnds(_ kind: StoreKind) async throws {
        let clock = TestClock()
        try await withStore(kind, clock: clock) { store in
            let bot = try await store.makeUser("echo", isBot: true)
            let first = try Self.granted(try await store.acquireLease(bot.id, holder: "a", ttl: Self.ttl))
            #expect(first == LeaseRecord(holder: "a", fence: 1, expiresAt: clock.now.milliseconds + Self.ttl))
            #expect(try await store.acquireLease(bot.id, holder: "b", ttl: Self.ttl) == .held(first))

            clock.advance(milliseconds: Self.ttl)
            let second = try Self.granted(try await store.acquireLease(bot.id, holder: "b", ttl: Self.ttl))
            #expect(second.fence == 2 && second.holder == "b")
            #expect(try await store.lease(of: bot.id) == second)
            // The first holder's renewal, however late, finds its holding over.
            #expect(try await store.renewLease(bot.id, holder: "a", fence: 1, ttl: Self.ttl) == .lost)
        }
    }

    @Test(arguments: StoreKind.allCases) func aRenewalKeepsTheFenceAndMovesTheEnd(_ kind: StoreKind) async throws {
        let clock = TestClock()
        try await withStore(kind, clock: clock) { store in
            let bot = try await store.makeUser("echo", isBot: true)
            let first = try Self.granted(try await store.acquireLease(bot.id, holder: "a", ttl: Self.ttl))
            clock.advance(milliseconds: Self.ttl + 5)
            // Past its end but taken by nobody since: still the holding, renewed.
            let renewed = try Self.granted(try await store.renewLease(bot.id, holder: "a", fence: 1, ttl: Self.ttl))
            #expect(renewed == LeaseRecord(holder: "a", fence: first.fence, expiresAt: clock.now.milliseconds + Self.ttl))
            #expect(try await store.renewLease(bot.id, holder: "b", fence: 1, ttl: Self.ttl) == .lost)
            #expect(try await store.renewLease(bot.id, holder: "a", fence: 7, ttl: Self.ttl) == .lost)
            // The same holder taking it again (a restarted runner) gets a new holding.
            let again = try Self.granted(try await store.acquireLease(bot.id, holder: "a", ttl: Self.ttl))
            #expect(again.fence == 2)
        }
    }

    @Test(arguments: StoreKind.allCases) func aReleasedLeaseIsFreeAndItsFenceWritesNoMore(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let bot = try await store.makeUser("echo", isBot: true)
            let lease = try Self.granted(try await store.acquireLease(bot.id, holder: "a", ttl: Self.ttl))
            #expect(try await store.releaseLease(bot.id, fence: lease.fence + 1) == false)
            #expect(try await store.releaseLease(bot.id, fence: lease.fence))
            #expect(try await store.releaseLease(bot.id, fence: lease.fence) == false)
            await #expect(throws: StoreError.leaseLost) {
                try await store.appendJournal(bot.id, fence: lease.fence, records: ["x"], limit: 1 << 20)
            }
            let next = try Self.granted(try await store.acquireLease(bot.id, holder: "b", ttl: Self.ttl))
            #expect(next.fence == lease.fence + 1)
        }
    }

    @Test(arguments: StoreKind.allCases) func theJournalKeepsRecordsInOrderAndACompactionReplacesThem(
        _ kind: StoreKind
    ) async throws {
        try await withStore(kind) { store in
            let bot = try await store.makeUser("echo", isBot: true)
            let other = try await store.makeUser("other", isBot: true)
            #expect(try await store.journal(of: bot.id) == StoredJournal())
            let lease = try Self.granted(try await store.acquireLease(bot.id, holder: "a", ttl: Self.ttl))
            _ = try await store.appendJournal(bot.id, fence: lease.fence, records: ["{\"a\":1}", "é"], limit: 1 << 20)
            let sizes = try await store.appendJournal(bot.id, fence: lease.fence, records: ["three"], limit: 1 << 20)
            // Each record counts its UTF-8 bytes and the overhead of a record.
            let overhead = Limits.journalRecordOverhead
            #expect(sizes.recordBytes == 7 + 2 + 5 + 3 * overhead && sizes.recordCount == 3)
            #expect(try await store.journal(of: bot.id)
                    == StoredJournal(snapshot: nil, records: ["{\"a\":1}", "é", "three"], recordBytes: 14 + 3 * overhead,
                                     snapshotBytes: 0, recordCount: 3))
            #expect(try await store.journal(of: other.id) == StoredJournal())

            let compacted = try await store.replaceJournalSnapshot(bot.id, fence: lease.fence, snapshot: "{}", limit: 1 << 20)
            #expect(compacted == StoredJournal(recordBytes: 0, snapshotBytes: 2, compactedThrough: 3))
            _ = try await store.appendJournal(bot.id, fence: lease.fence, records: ["four"], limit: 1 << 20)
            // Numbers go on after a compaction: the fourth record is number 4.
            #expect(try await store.journal(of: bot.id)
                    == StoredJournal(snapshot: "{}", records: ["four"], recordBytes: 4 + overhead, snapshotBytes: 2,
                                     recordCount: 1, compactedThrough: 3))
            #expect(try await store.journal(of: bot.id, after: 3, limit: 10).records == ["four"])
            #expect(try await store.journal(of: bot.id, after: 4, limit: 10).records.isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases) func aStaleFenceOrAFullJournalWritesNothing(_ kind: StoreKind) async throws {
        let clock = TestClock()
        try await withStore(kind, clock: clock) { store in
            let bot = try await store.makeUser("echo", isBot: true)
            let old = try Self.granted(try await store.acquireLease(bot.id, holder: "a", ttl: Self.ttl))
            let limit = 10 + 2 * Limits.journalRecordOverhead
            _ = try await store.appendJournal(bot.id, fence: old.fence, records: ["1234"], limit: limit)
            await #expect(throws: StoreError.overBudget(used: 4 + Limits.journalRecordOverhead, limit: limit)) {
                try await store.appendJournal(bot.id, fence: old.fence, records: ["a", "1"], limit: limit)
            }
            await #expect(throws: StoreError.overBudget(used: 0, limit: limit)) {
                try await store.replaceJournalSnapshot(
                    bot.id, fence: old.fence, snapshot: String(repeating: "1", count: limit + 1), limit: limit)
            }
            clock.advance(milliseconds: Self.ttl)
            let new = try Self.granted(try await store.acquireLease(bot.id, holder: "b", ttl: Self.ttl))
            await #expect(throws: StoreError.leaseLost) {
                try await store.appendJournal(bot.id, fence: old.fence, records: ["late"], limit: 1 << 20)
            }
            await #expect(throws: StoreError.leaseLost) {
                try await store.replaceJournalSnapshot(bot.id, fence: old.fence, snapshot: "late", limit: 1 << 20)
            }
            #expect(try await store.journal(of: bot.id).records == ["1234"])
            _ = try await store.appendJournal(bot.id, fence: new.fence, records: ["5"], limit: 1 << 20)
            #expect(try await store.journal(of: bot.id).records == ["1234", "5"])
        }
    }

    @Test(arguments: StoreKind.allCases) func manyTakersAtOnceGetOneHolding(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let bot = try await store.makeUser("echo", isBot: true)
            let outcomes = try await withThrowingTaskGroup(of: LeaseOutcome.self) { group in
                for index in 0..<8 {
                    group.addTask { try await store.acquireLease(bot.id, holder: "runner-\(index)", ttl: 60_000) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let granted = outcomes.compactMap { outcome -> LeaseRecord? in
                if case .granted(let lease) = outcome { return lease }
                return nil
            }
            #expect(granted.count == 1)
            #expect(outcomes.filter { if case .held = $0 { true } else { false } }.count == 7)
        }
    }

    @Test(arguments: StoreKind.allCases) func aDeletedAccountLeavesNoJournal(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let bot = try await store.makeUser("echo", isBot: true)
            let lease = try Self.granted(try await store.acquireLease(bot.id, holder: "a", ttl: Self.ttl))
            _ = try await store.appendJournal(bot.id, fence: lease.fence, records: ["x"], limit: 1 << 20)
            _ = try await store.deleteUser(bot.id)
            #expect(try await store.journal(of: bot.id) == StoredJournal())
            #expect(try await store.lease(of: bot.id) == nil)
        }
    }
}

/// Schema version 5 on a database of version 4.
@Suite struct BotJournalMigrationTests {
    @Test(arguments: StoreKind.allCases) func aVersion4DatabaseGainsLeasesAndJournalsAndKeepsItsAccounts(
        _ kind: StoreKind
    ) async throws {
        try await StoreFixture.withUnmigrated(kind) { fixture in
            try await fixture.migrate(upTo: 4)
            let isBot = kind == .sqlite ? "1" : "true"
            try fixture.execute(
                "INSERT INTO users (username, password_hash, nickname, is_bot, created_at) VALUES ('echo', 'h', 'Echo', \(isBot), 0)")
            #expect(try fixture.count("SELECT count(*) FROM users") == 1)
            try await closing(try await fixture.open()) { store in
                let bot = try #require(try await store.user(named: "echo"))
                #expect(bot.user.isBot)
                guard case .granted(let lease) = try await store.acquireLease(bot.id, holder: "a", ttl: 1000) else {
                    throw StoreTestError("the lease was not granted")
                }
                _ = try await store.appendJournal(bot.id, fence: lease.fence, records: ["r"], limit: 100)
            }
            #expect(try fixture.count("SELECT count(*) FROM bot_journal_records") == 1)
            let version = kind == .sqlite
                ? "PRAGMA user_version" : "SELECT max(version) FROM switchboard_migrations"
            #expect(try fixture.count(version) == Schema.latestVersion)
        }
    }
}
