import Foundation
import IMProtocol
import Lifecycle
import TestSupport
import Testing

/// `/v1/me/lease` and `/v1/me/journal`: who may, limits, and fencing.
@Suite(.sharedServers) struct BotJournalTests {
    static func take(_ client: TestClient, holder: String, ttl: Int64 = 10_000) async throws -> TestClient.Answer {
        try await client.send("POST", "/v1/me/lease", json: LeaseRequest(holder: holder, ttlMilliseconds: ttl))
    }

    @Test(arguments: TestStore.allCases) func onlyABotsOwnLoginMayUseLeasesAndJournals(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (person, _) = try await server.client.register(Names.unique("person"))
        let (admin, _) = try await server.createAccount(Names.unique("admin"), admin: true)
        for client in [person, admin] {
            expectError(try await Self.take(client, holder: "a"), .forbidden, reason: "not_a_bot")
            expectError(try await client.get("/v1/me/journal"), .forbidden, reason: "not_a_bot")
            expectError(try await client.send("POST", "/v1/me/journal/records",
                                              json: JournalAppendRequest(fence: 1, records: [])), .forbidden, reason: "not_a_bot")
            expectError(try await client.send("PUT", "/v1/me/journal/snapshot",
                                              json: JournalSnapshotRequest(fence: 1, snapshot: "{}")), .forbidden, reason: "not_a_bot")
            expectError(try await client.send("DELETE", "/v1/me/lease?fence=1"), .forbidden, reason: "not_a_bot")
        }
        // The process-local administration credential works for /v1/admin only.
        expectError(try await Self.take(try await server.localAdministrator(), holder: "a"), .forbidden)
        expectError(try await Self.take(server.client, holder: "a"), .unauthorized)
        expectError(try await server.client.get("/v1/me/journal"), .unauthorized)
    }

    @Test(arguments: TestStore.allCases) func aLeaseIsHeldAgainstOthersAndItsFenceGuardsTheJournal(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let name = Names.unique("bot")
        let (first, _) = try await server.createAccount(name, password: "bot password", bot: true)
        let second = try await server.client.login(name, password: "bot password")
        let other = try await server.createAccount(Names.unique("bot"), password: "bot password", bot: true).client

        let taken = try await Self.take(first, holder: "runner-a")
        expectStatus(taken, 200)
        let lease = try taken.decode(BotLease.self)
        #expect(lease.holder == "runner-a" && lease.fence >= 1 && lease.ttlMilliseconds == 10_000)
        let held = try await Self.take(second, holder: "runner-b")
        expectError(held, .conflict, reason: "lease_held")
        #expect(held.text.contains("runner-a"))
        // Another bot's lease is its own.
        expectStatus(try await Self.take(other, holder: "runner-b"), 200)

        let append = try await first.send(
            "POST", "/v1/me/journal/records", json: JournalAppendRequest(fence: lease.fence, records: ["{\"seq\":1}"]))
        expectStatus(append, 200)
        // Its 9 bytes and the overhead every record counts.
        #expect(try append.decode(JournalSizesBody.self) == JournalSizesBody(recordBytes: 9 + 64, snapshotBytes: 0))
        // The same account's other login may write under the fence too: the lease is the bot's.
        let journal = try await second.get("/v1/me/journal").decode(StoredJournalBody.self)
        #expect(
            journal
                == StoredJournalBody(
                    snapshot: nil, records: ["{\"seq\":1}"], recordBytes: 73, snapshotBytes: 0, recordCount: 1,
                    nextAfter: nil, compactedThrough: 0))
        #expect(try await other.get("/v1/me/journal").decode(StoredJournalBody.self).records.isEmpty)

        // Renewed under the same fence; a made-up fence is lost.
        let renewed = try await first.send(
            "POST", "/v1/me/lease", json: LeaseRequest(holder: "runner-a", ttlMilliseconds: 10_000, fence: lease.fence))
        expectStatus(renewed, 200)
        #expect(try renewed.decode(BotLease.self).fence == lease.fence)
        expectError(try await first.send(
            "POST", "/v1/me/lease", json: LeaseRequest(holder: "runner-a", ttlMilliseconds: 10_000, fence: lease.fence + 5)),
            .conflict, reason: "lease_lost")

        // Released: B takes it under a new fence, and A's writes are refused, writing nothing.
        expectStatus(try await first.send("DELETE", "/v1/me/lease?fence=\(lease.fence)"), 204)
        let next = try await Self.take(second, holder: "runner-b").decode(BotLease.self)
        #expect(next.fence == lease.fence + 1)
        expectError(try await first.send(
            "POST", "/v1/me/journal/records", json: JournalAppendRequest(fence: lease.fence, records: ["late"])),
            .conflict, reason: "lease_lost")
        expectError(try await first.send(
            "PUT", "/v1/me/journal/snapshot", json: JournalSnapshotRequest(fence: lease.fence, snapshot: "late")),
            .conflict, reason: "lease_lost")
        let snapshot = try await second.send(
            "PUT", "/v1/me/journal/snapshot", json: JournalSnapshotRequest(fence: next.fence, snapshot: "{\"s\":1}"))
        expectStatus(snapshot, 200)
        #expect(try await second.get("/v1/me/journal").decode(StoredJournalBody.self)
                == StoredJournalBody(
                    snapshot: "{\"s\":1}", records: [], recordBytes: 0, snapshotBytes: 7, recordCount: 0, compactedThrough: 1))
    }

    @Test(arguments: TestStore.allCases) func badLeaseAndJournalRequestsNameTheirField(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (bot, _) = try await server.createAccount(Names.unique("bot"), password: "bot password", bot: true)
        expectError(try await Self.take(bot, holder: ""), .invalidRequest, field: "holder")
        expectError(try await Self.take(bot, holder: String(repeating: "h", count: 129)), .invalidRequest, field: "holder")
        expectError(try await Self.take(bot, holder: "tab\there"), .invalidRequest, field: "holder")
        expectError(try await Self.take(bot, holder: "a", ttl: 999), .invalidRequest, field: "ttl_ms")
        expectError(try await Self.take(bot, holder: "a", ttl: 600_001), .invalidRequest, field: "ttl_ms")
        expectError(try await bot.send("POST", "/v1/me/lease", json: ["holder": "a"]), .invalidRequest, field: "ttl_ms")
        expectError(try await bot.send("DELETE", "/v1/me/lease"), .invalidRequest, field: "fence")
        expectError(try await bot.send("DELETE", "/v1/me/lease?fence=0"), .invalidRequest, field: "fence")
        expectError(try await bot.send("POST", "/v1/me/journal/records", json: JournalAppendRequest(fence: 0, records: [])),
                    .invalidRequest, field: "fence")
        let tooMany = JournalAppendRequest(fence: 1, records: Array(repeating: "", count: Limits.journalRecordsPerAppend + 1))
        expectError(try await bot.send("POST", "/v1/me/journal/records", json: tooMany), .invalidRequest, field: "records")
    }

    @Test(arguments: TestStore.allCases) func aJournalWriteOverTheRequestLimitIsRefused(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (bot, _) = try await server.createAccount(Names.unique("bot"), password: "bot password", bot: true)
        let lease = try await Self.take(bot, holder: "a").decode(BotLease.self)
        // Refused from its length, before it is read through.
        let huge = String(repeating: "x", count: Limits.journalRequestBytes)
        expectError(try await bot.send("PUT", "/v1/me/journal/snapshot",
                                       json: JournalSnapshotRequest(fence: lease.fence, snapshot: huge)), .payloadTooLarge)
        // Just under it is taken.
        let large = String(repeating: "y", count: Limits.journalRequestBytes - 1024)
        expectStatus(try await bot.send("POST", "/v1/me/journal/records",
                                        json: JournalAppendRequest(fence: lease.fence, records: [large])), 200)
    }
}

/// A bot's journal fills up to the server's limit (a small one here), and a compaction
/// makes room.
@Suite struct BotJournalLimitTests {
    @Test func writesAddUpToTheJournalsLimitThenOneMoreIsRefused() async throws {
        let limit = 64 * 1024
        try await withServer({ $0.journalBytesPerBot = limit }) { server in
            let (bot, _) = try await server.createAccount("filler", password: "bot password", bot: true)
            let lease = try await BotJournalTests.take(bot, holder: "a").decode(BotLease.self)
            let chunk = String(repeating: "y", count: 20 * 1024)
            for _ in 0..<3 {
                expectStatus(try await bot.send(
                    "POST", "/v1/me/journal/records", json: JournalAppendRequest(fence: lease.fence, records: [chunk])), 200)
            }
            let full = try await bot.send(
                "POST", "/v1/me/journal/records", json: JournalAppendRequest(fence: lease.fence, records: [chunk]))
            expectError(full, .payloadTooLarge, reason: "journal_full")
            #expect(
                try await bot.get("/v1/me/journal").decode(StoredJournalBody.self).recordBytes
                    == 3 * (chunk.utf8.count + Limits.journalRecordOverhead))
            expectError(try await bot.send("PUT", "/v1/me/journal/snapshot",
                                           json: JournalSnapshotRequest(fence: lease.fence, snapshot: chunk + chunk + chunk + chunk)),
                        .payloadTooLarge, reason: "journal_full")
            // A compaction makes room again.
            expectStatus(try await bot.send("PUT", "/v1/me/journal/snapshot",
                                            json: JournalSnapshotRequest(fence: lease.fence, snapshot: "{}")), 200)
            expectStatus(try await bot.send("POST", "/v1/me/journal/records",
                                            json: JournalAppendRequest(fence: lease.fence, records: [chunk])), 200)
        }
    }
}

/// Lease time is the server's injected clock.
@Suite struct BotLeaseClockTests {
    @Test func aLeaseEndsWhenTheServersClockPassesItsTTL() async throws {
        let time = ManualTime()
        try await withServer(time: time) { server in
            let (first, _) = try await server.createAccount("leased", password: "bot password", bot: true)
            let lease = try await BotJournalTests.take(first, holder: "a", ttl: 5_000).decode(BotLease.self)
            #expect(lease.expiresAt == Timestamp(milliseconds: time.wallMilliseconds + 5_000))
            time.setWall(milliseconds: time.wallMilliseconds + 4_999)
            expectError(try await BotJournalTests.take(first, holder: "b", ttl: 5_000), .conflict, reason: "lease_held")
            time.setWall(milliseconds: time.wallMilliseconds + 1)
            let taken = try await BotJournalTests.take(first, holder: "b", ttl: 5_000)
            expectStatus(taken, 200)
            #expect(try taken.decode(BotLease.self).fence == lease.fence + 1)
        }
    }
}

/// Issue 25, §4 "Empty journal records are free": every record counts an overhead against
/// the journal's bytes, a journal holds at most `Limits.journalRecords` records, and the
/// journal is read in pages.
@Suite struct BotJournalRecordTests {
    private func append(_ bot: TestClient, _ fence: Int64, _ records: [String]) async throws -> TestClient.Answer {
        try await bot.send("POST", "/v1/me/journal/records", json: JournalAppendRequest(fence: fence, records: records))
    }

    @Test(arguments: TestStore.allCases)
    func emptyRecordsCountTheirOverheadAndAJournalHoldsAtMostItsRecords(_ store: TestStore) async throws {
        try await withServer(store: store) { server in
            let (bot, _) = try await server.createAccount(Names.unique("empty"), password: "bot password", bot: true)
            let lease = try await BotJournalTests.take(bot, holder: "a").decode(BotLease.self)
            let empty = Array(repeating: "", count: Limits.journalRecordsPerAppend)
            for round in 1...(Limits.journalRecords / Limits.journalRecordsPerAppend) {
                let answer = try await append(bot, lease.fence, empty)
                expectStatus(answer, 200)
                #expect(try answer.decode(JournalSizesBody.self).recordBytes == round * empty.count * Limits.journalRecordOverhead)
            }
            // The 100,001st record is refused, and nothing of its append is written.
            expectError(try await append(bot, lease.fence, ["", ""]), .payloadTooLarge, reason: "journal_full")
            let first = try await bot.get("/v1/me/journal").decode(StoredJournalBody.self)
            #expect(first.recordCount == Limits.journalRecords && first.records.count == Limits.journalPageRecords.upperBound)
            // A snapshot empties it, and writing goes on.
            expectStatus(
                try await bot.send(
                    "PUT", "/v1/me/journal/snapshot", json: JournalSnapshotRequest(fence: lease.fence, snapshot: "{}")), 200)
            expectStatus(try await append(bot, lease.fence, ["", ""]), 200)
            let after = try await bot.get("/v1/me/journal").decode(StoredJournalBody.self)
            #expect(after.recordCount == 2 && after.snapshot == "{}" && after.nextAfter == nil)
            #expect(after.compactedThrough == Int64(Limits.journalRecords))
        }
    }

    @Test func aSmallJournalFillsWithEmptyRecordsByTheirOverhead() async throws {
        try await withServer({ $0.journalBytesPerBot = 64 * 1024 }) { server in
            let (bot, _) = try await server.createAccount("overhead", password: "bot password", bot: true)
            let lease = try await BotJournalTests.take(bot, holder: "a").decode(BotLease.self)
            let fits = 64 * 1024 / Limits.journalRecordOverhead
            expectStatus(try await append(bot, lease.fence, Array(repeating: "", count: fits)), 200)
            expectError(try await append(bot, lease.fence, [""]), .payloadTooLarge, reason: "journal_full")
        }
    }

    @Test(arguments: TestStore.allCases) func theJournalIsReadInPages(_ store: TestStore) async throws {
        try await withServer(store: store) { server in
            let (bot, _) = try await server.createAccount(Names.unique("pages"), password: "bot password", bot: true)
            let lease = try await BotJournalTests.take(bot, holder: "a").decode(BotLease.self)
            expectStatus(
                try await bot.send(
                    "PUT", "/v1/me/journal/snapshot", json: JournalSnapshotRequest(fence: lease.fence, snapshot: "{\"s\":1}")),
                200)
            expectStatus(try await append(bot, lease.fence, ["r1", "r2", "r3", "r4", "r5"]), 200)
            var pages: [StoredJournalBody] = []
            var query = "?limit=2"
            while pages.count < 10 {
                let page = try await bot.get("/v1/me/journal\(query)").decode(StoredJournalBody.self)
                pages.append(page)
                guard let next = page.nextAfter else { break }
                query = "?limit=2&after=\(next)"
            }
            #expect(pages.map(\.records) == [["r1", "r2"], ["r3", "r4"], ["r5"]])
            #expect(pages.map(\.snapshot) == ["{\"s\":1}", nil, nil])
            #expect(pages.allSatisfy { $0.recordCount == 5 && $0.compactedThrough == 0 })
            expectError(try await bot.get("/v1/me/journal?limit=0"), .invalidRequest, field: "limit")
            expectError(try await bot.get("/v1/me/journal?limit=10001"), .invalidRequest, field: "limit")
            expectError(try await bot.get("/v1/me/journal?after=-1"), .invalidRequest, field: "after")

            // A page holds 4 MiB of records at most (one record always).
            let big = String(repeating: "b", count: 3 << 20)
            for _ in 0..<2 { expectStatus(try await append(bot, lease.fence, [big]), 200) }
            let byBytes = try await bot.get("/v1/me/journal?after=\(pages[1].nextAfter ?? 0)").decode(StoredJournalBody.self)
            #expect(byBytes.records.count == 2 && byBytes.records.last == big && byBytes.nextAfter != nil)
        }
    }
}

