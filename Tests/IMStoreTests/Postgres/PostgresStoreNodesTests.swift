import Foundation
import IMProtocol
import IMStore
import PostgresTestSupport
import TestSupport
import Testing

/// Two PostgreSQL stores on one database, as two server nodes: what one commits reaches
/// the other's feed observers in position order, positions stay gapless and in commit
/// order with both writing at once, and the coordination tables work across them.
@Suite struct PostgresStoreNodesTests {
    @Test(.timeLimit(.minutes(2)))
    func concurrentSendsFromTwoNodesGetContiguousSeqsAndPositionsEachNodeHearsInOrder() async throws {
        try await PostgresNodes.with(2) { nodes in
            let (a, b) = (nodes.stores[0], nodes.stores[1])
            let heardOnA = HeardUpdates(a)
            let heardOnB = HeardUpdates(b)
            var users: [UserRecord] = []
            for index in 0..<4 { users.append(try await (index.isMultiple(of: 2) ? a : b).makeUser("user\(index)")) }
            let members = users.map(\.id)
            let group = try await a.makeGroup("crew", owner: members[0], members: Array(members.dropFirst()))
            let count = 120
            let sentOn = try await withThrowingTaskGroup(of: (Message, onA: Bool).self) { tasks in
                for index in 0..<count {
                    let store = index.isMultiple(of: 2) ? a : b
                    tasks.addTask {
                        (try await store.send("m\(index)", to: group.id, from: members[index % members.count]), index.isMultiple(of: 2))
                    }
                }
                return try await tasks.reduce(into: [(Message, onA: Bool)]()) { $0.append($1) }
            }
            let sent = sentOn.map(\.0)
            let last = try await b.conversation(id: group.id)?.lastSeq ?? 0
            #expect(Set(sent.map(\.seq)).count == count)
            #expect(try await a.messages(group.id, before: nil, limit: 1_000).map(\.seq) == Array((1...last).reversed()))

            // Every feed holds every message once, in position order, on either node.
            let feedA = try await a.feed(members[1]).filter { $0.type == .message }
            let feedB = try await b.feed(members[1]).filter { $0.type == .message }
            #expect(feedA == feedB)
            #expect(Set(feedA.compactMap(\.message?.id)) == Set(sent.map(\.id)))
            // Positions are handed out without gaps: first to last, every one used.
            let positions = try nodes.database.rawPositions()
            let newest = try #require(positions.last)
            #expect(positions == Array(1...newest))

            // Each node hears of every position, its own and the other's, in order.
            try await heardOnA.wait(for: newest)
            try await heardOnB.wait(for: newest)
            for heard in [heardOnA, heardOnB] {
                #expect(heard.positions == positions)
                #expect(heard.all.allSatisfy { $0.missedThrough == nil })
            }
            #expect(a.committedPosition == newest && b.committedPosition == newest)
            // Only the node that committed a message has it in its update; the other reads
            // it from the feed. Both know who it reached.
            let onA = Set(sentOn.filter(\.onA).map(\.0.id))
            let positionOnA = Dictionary(uniqueKeysWithValues: feedA.compactMap { event in
                event.message.map { ($0.id, event.position) } }).filter { onA.contains($0.key) }
            let entriesOnA = Dictionary(uniqueKeysWithValues: heardOnA.all.flatMap(\.entries).map { ($0.position, $0) })
            for event in feedA {
                guard let id = event.message?.id, let entry = entriesOnA[event.position] else { continue }
                #expect((entry.message != nil) == (positionOnA[id] != nil))
                #expect(entry.recipients == members)
            }
        }
    }

    @Test func theSameClientIDSentThroughTwoNodesAtOnceWritesOneMessage() async throws {
        try await PostgresNodes.with(2) { nodes in
            let (a, b) = (nodes.stores[0], nodes.stores[1])
            let alice = try await a.makeUser("alice")
            let group = try await a.makeGroup("solo", owner: alice.id)
            let results = try await withThrowingTaskGroup(of: (Message, Bool).self) { tasks in
                for index in 0..<10 {
                    let store = index.isMultiple(of: 2) ? a : b
                    tasks.addTask {
                        try await store.appendMessage(
                            NewMessage(conversationID: group.id, senderID: alice.id, text: "once", clientMessageID: "c1"))
                    }
                }
                return try await tasks.reduce(into: [(Message, Bool)]()) { $0.append($1) }
            }
            #expect(Set(results.map(\.0.id)).count == 1)
            #expect(results.filter { !$0.1 }.count == 1)
            #expect(try await b.messages(group.id, before: nil, limit: 10).filter { $0.type == .chat }.count == 1)
        }
    }

    @Test func aPollClaimOnOneNodeIsHeardByTheOtherWithAHigherGeneration() async throws {
        try await PostgresNodes.with(2) { nodes in
            let (a, b) = (nodes.stores[0], nodes.stores[1])
            let heard = Shared([PollClaim]())
            b.cluster.observe { event in
                if case .claimed(let claims) = event { heard.update { $0 += claims } }
            }
            let first = try await a.claimPoll(tokenID: 7)
            let second = try await b.claimPoll(tokenID: 7)
            let third = try await a.claimPoll(tokenID: 7)
            #expect([first, second, third] == [1, 2, 3])
            // B hears of A's claims as the claims table has them, never of its own.
            try await eventually("B hears A's latest claim") { heard.value.last == PollClaim(tokenID: 7, generation: 3) }
            #expect(heard.value.allSatisfy { $0 != PollClaim(tokenID: 7, generation: 2) })
        }
    }

    /// Issue 25, §2: a claim notice is checked against `poll_claims` before anyone acts on
    /// it. Forged for a login whose claim this node holds, or with a generation nobody
    /// holds, it is refused; the claim another node truly holds is told as the table has it.
    @Test func aForgedClaimIsToldOnlyAsTheClaimsTableHasIt() async throws {
        try await PostgresNodes.with(2) { nodes in
            let (a, b) = (nodes.stores[0], nodes.stores[1])
            let heardOnA = Shared([PollClaim]())
            let heardOnB = Shared([PollClaim]())
            a.cluster.observe { if case .claimed(let claims) = $0 { heardOnA.update { $0 += claims } } }
            b.cluster.observe { if case .claimed(let claims) = $0 { heardOnB.update { $0 += claims } } }
            #expect(try await a.claimPoll(tokenID: 11) == 1)
            try await eventually("B hears A's claim") { heardOnB.value == [PollClaim(tokenID: 11, generation: 1)] }
            let refusedOnA = a.cluster.refusedNotices
            try await nodes.database.notify("c forger b:rrr c:1 zz:5")
            // On A, which holds 11 (b): nothing; on B, 11 as the table has it. 12 and 1295 have no claim.
            try await eventually("A refuses them") { a.cluster.refusedNotices == refusedOnA + 3 }
            try await eventually("B checked them") { heardOnB.value.count == 2 }
            #expect(heardOnA.value.isEmpty)
            #expect(heardOnB.value == [PollClaim(tokenID: 11, generation: 1), PollClaim(tokenID: 11, generation: 1)])
        }
    }

    /// Issue 25, §2: a feed notice only makes a node read the feed clock and what was
    /// committed up to it. A range past the clock (10^12) is refused, and the node goes on
    /// hearing the other's commits, with positions as the tables have them.
    @Test func aForgedFeedRangeIsRefusedAndTheOtherNodesCommitsAreStillHeard() async throws {
        try await PostgresNodes.with(2) { nodes in
            let (a, b) = (nodes.stores[0], nodes.stores[1])
            let heardOnB = HeardUpdates(b)
            let alice = try await a.makeUser("alice")
            let bob = try await a.makeUser("bob")
            let trillion = String(Int64(1_000_000_000_000), radix: 36)
            let refused = b.cluster.refusedNotices
            try await nodes.database.notify("f forger 1 \(trillion)")
            try await nodes.database.notify("f forger \(trillion) \(trillion) 0 \(trillion)=1")
            try await eventually("B refuses the forged range") { b.cluster.refusedNotices > refused }
            #expect(b.committedPosition < 1_000 && b.issuedPosition < 1_000)
            #expect(try await b.newestIssuedPosition() < 1_000)

            let direct = try await a.directConversation(alice.id, bob.id)
            let sent = try await a.send("still heard", to: direct.id, from: alice.id)
            let position = try #require(try await b.feed(bob.id).last { $0.message?.id == sent.id }?.position)
            try await heardOnB.wait(for: position)
            #expect(heardOnB.all.flatMap(\.entries).contains { $0.position == position && $0.recipients.contains(bob.id) })
            #expect(b.committedPosition == position)
        }
    }

    /// What a node reads of the other's commits follows `FeedVisibility` as the feed read
    /// does: a room member who came after a message is no recipient of its edit (else their
    /// poll would wake for an event their feed read then hides).
    @Test func whomAnotherNodesEditReachedIsReadAsTheFeedsHaveIt() async throws {
        try await PostgresNodes.with(2) { nodes in
            let (a, b) = (nodes.stores[0], nodes.stores[1])
            let heardOnB = HeardUpdates(b)
            let alice = try await a.makeUser("alice")
            let early = try await a.makeUser("early")
            let newcomer = try await a.makeUser("newcomer")
            let room = try await a.makeGroup("lobby", owner: alice.id, members: [early.id], kind: .room)
            let before = try await a.send("before the newcomer", to: room.id, from: alice.id)
            _ = try await a.addMember(
                room.id, newcomer.id, role: .member, change: MembershipChange(event: .memberJoined, notice: nil))
            let edited = try await a.editMessage(
                MessageEdit(conversationID: room.id, messageID: before.id, editor: alice.id, text: "edited"))
            #expect(edited.text == "edited")
            let position = try #require(try await b.feed(early.id).last { $0.type == .messageEdited }?.position)
            try await heardOnB.wait(for: position)
            let entry = try #require(heardOnB.all.flatMap(\.entries).first { $0.position == position })
            #expect(Set(entry.recipients) == [alice.id, early.id])
            #expect(try await b.feed(newcomer.id).allSatisfy { $0.message?.id != before.id })
        }
    }

    @Test func loginsEndedOnOneNodeAreInTheLogTheOtherReads() async throws {
        let clock = TestClock()
        try await PostgresNodes.with(2, clock: clock) { nodes in
            let (a, b) = (nodes.stores[0], nodes.stores[1])
            let revoked = Shared(0)
            b.cluster.observe { event in
                if event == .revoked { revoked.update { $0 += 1 } }
            }
            let alice = try await a.makeUser("alice")
            let bob = try await a.makeUser("bob")
            let start = b.openedAtRevocationEpoch
            let phone = try await a.createToken(hash: [1], userID: alice.id, device: "phone", expiresAt: nil)
            _ = try await a.createToken(hash: [2], userID: alice.id, device: "phone", expiresAt: nil)  // kicks the first
            try await a.revokeToken(id: 999, reason: "logout")  // no such login: nothing logged
            try await a.setPasswordHash(bob.id, "new", revokeTokens: true)
            let log = try await b.revocations(after: start)
            #expect(log == RevocationLog(epoch: start + 2, tokens: [phone.token.id], users: [bob.id], complete: true))
            #expect(try await b.revocations(after: log.epoch) == RevocationLog(epoch: log.epoch))
            try await eventually("B hears of the revocations") { revoked.value > 0 }

            // Once the log is pruned past an epoch, a reader that far behind is told so.
            clock.advance(milliseconds: 1_000)
            _ = try await b.pruneTokens(before: clock.now)
            #expect(try await b.revocations(after: start).complete == false)
            #expect(try await b.revocations(after: log.epoch).complete)
        }
    }

    @Test func loginCountersChangedOnTwoNodesAtOnceLoseNoChange() async throws {
        try await PostgresNodes.with(2) { nodes in
            let (a, b) = (nodes.stores[0], nodes.stores[1])
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for index in 0..<40 {
                    let store = index.isMultiple(of: 2) ? a : b
                    tasks.addTask {
                        try await store.updateLoginCounters(username: "alice", address: "192.0.2.1", waitingAtMost: nil) {
                            counters in
                            counters.pair.failures += 1
                            counters.address.pending += 1
                            counters.trusted["198.51.100.\(index % 3)"] = Int64(index)
                        }
                    }
                }
                try await tasks.waitForAll()
            }
            let seen = try await b.updateLoginCounters(username: "alice", address: "192.0.2.1", waitingAtMost: nil) { $0 }
            #expect(seen.pair.failures == 40 && seen.address.pending == 40 && seen.account == .init())
            #expect(Set(seen.trusted.keys) == ["198.51.100.0", "198.51.100.1", "198.51.100.2"])
            // Another address of the same account shares the account's record only.
            let other = try await a.updateLoginCounters(username: "alice", address: "192.0.2.2", waitingAtMost: nil) { $0 }
            #expect(other.pair == .init() && other.address == .init() && other.trusted == seen.trusted)
        }
    }
}

extension PostgresTestDatabase {
    /// Every position stored in the conversation and user events, ascending.
    func rawPositions() throws -> [Int64] {
        let connection = try PostgresConnection(configuration: configuration)
        return try connection.rows(
            "SELECT position FROM conversation_events UNION SELECT position FROM user_events ORDER BY 1",
            as: { try $0.int(0) })
    }

    /// Sends `payload` on the nodes' channel, as any role that may connect can.
    func notify(_ payload: String) async throws {
        let pool = PostgresPool(configuration: poolConfiguration(maxConnections: 1))
        _ = try await ensuring({
            try await pool.withConnection { try $0.execute("SELECT pg_notify('switchboard_cluster', $1)", payload) }
        }) { await pool.close() }
    }
}
