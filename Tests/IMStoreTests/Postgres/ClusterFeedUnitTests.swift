import IMProtocol
import Testing

@testable import IMStore

/// The pieces of the cross-node feed that need no database: the notification format and
/// the ordering of committed ranges.
@Suite struct ClusterFeedUnitTests {
    @Test func noticesRoundTripAndNameNobody() {
        let feed = ClusterNotice.feedPayload(node: "n1", first: 40, last: 41)
        #expect(feed == "f n1 14 15")
        #expect(ClusterNotice(feed) == .feed(node: "n1", first: 40, last: 41))
        // An earlier version's notice, with recipients after the range, reads as its range.
        #expect(ClusterNotice("f n2 7 9 0 7=rs,1") == .feed(node: "n2", first: 7, last: 9))

        let claims = (1...2_000).map { PollClaim(tokenID: Int64($0) * 1_000_003, generation: Int64($0)) }
        let payloads = ClusterNotice.claimPayloads(node: "n3", claims)
        #expect(payloads.count > 1 && payloads.allSatisfy { $0.utf8.count <= ClusterNotice.maxPayload })
        let decoded = payloads.flatMap { payload -> [PollClaim] in
            guard case .claims("n3", let part) = ClusterNotice(payload) else { return [] }
            return part
        }
        #expect(decoded == claims)
        #expect(ClusterNotice(ClusterNotice.revokedPayload(node: "n4", epoch: 77)) == .revoked(node: "n4", epoch: 77))
    }

    /// Issue 25: what any role that may connect can send. Nothing traps, nothing huge is
    /// read; each is nil.
    @Test func malformedAndOverflowingNoticesAreRefused() {
        let int64Max = String(Int64.max, radix: 36)  // "1y2p0ij32e8e7"
        let strangers = [
            "", "x n1", "f n1 zz", "c n1 1:", "r n1", "f  1 2", "f n1 0 5", "f n1 5 4", "f n1 -1 2", "f n1 +1 2",
            "f n1 1 \(int64Max)0", "f n1 1 zzzzzzzzzzzzzz", "f n1 A B", "c n1 1:0", "c n1 1:2:3", "c n1 \(int64Max)1:1",
            "r n1 0", "r n1 1 2", "c n1 " + String(repeating: "1:1 ", count: 3_000),
        ]
        for stranger in strangers {
            #expect(ClusterNotice(stranger) == nil, "\(stranger.prefix(60))")
        }
        // The largest number that fits is still a number.
        #expect(ClusterNotice("f n1 1 \(int64Max)") == .feed(node: "n1", first: 1, last: Int64.max))
    }

    @Test func rangesAreToldInPositionOrderWhateverOrderTheyArrive() {
        let notifier = FeedNotifier()
        let told = Shared([FeedUpdate]())
        notifier.observe { update in told.update { $0.append(update) } }
        let order = FeedOrder(notifier: notifier)
        order.start(after: 10)
        func update(_ position: Int64) -> FeedUpdate {
            FeedUpdate(entries: [FeedEntry(position: position, recipients: [UserID(rawValue: 1)])])
        }
        order.arrived(first: 14, last: 15, update(15))
        order.arrived(first: 13, last: 13, nil)  // fed no one: not told, but fills the gap
        #expect(told.value.isEmpty && order.through == 10 && order.newest == 15)
        #expect(order.waitingFor() != nil)
        order.arrived(first: 11, last: 12, update(12))
        #expect(told.value.map(\.newest) == [12, 15])
        #expect(order.through == 15 && order.waitingFor() == nil)
        order.arrived(first: 11, last: 12, update(12))  // an echo of a range told already
        #expect(told.value.count == 2)

        // A gap that never fills: a resync counts it as told and says so, then goes on.
        order.arrived(first: 20, last: 20, update(20))
        order.arrived(first: 17, last: 17, update(17))
        order.resync(through: 18)
        #expect(told.value.dropFirst(2).map(\.missedThrough) == [18])
        #expect(order.through == 18)
        order.arrived(first: 19, last: 19, nil)
        #expect(told.value.dropFirst(3).map(\.newest) == [20] && order.through == 20)
    }

    /// The others' commits are read from the tables (`caughtUp`): a read told around this
    /// node's own waiting ranges, which keep their updates (with their messages).
    @Test func aReadFromTheTablesFillsTheGapsAroundThisNodesOwnRanges() {
        let notifier = FeedNotifier()
        let told = Shared([FeedUpdate]())
        notifier.observe { update in told.update { $0.append(update) } }
        let order = FeedOrder(notifier: notifier)
        order.start(after: 10)
        func entry(_ position: Int64, _ user: Int64) -> FeedEntry {
            FeedEntry(position: position, recipients: [UserID(rawValue: user)])
        }
        order.arrived(first: 13, last: 14, FeedUpdate(entries: [entry(14, 7)]))  // own, early
        #expect(told.value.isEmpty)
        // The read found 11 and 12 (another node's) and 13-14 (this node's, told by its own
        // update), and 16.
        order.caughtUp(through: 16, entries: [entry(11, 1), entry(12, 2), entry(13, 99), entry(16, 3)])
        #expect(told.value.map { $0.entries.map(\.position) } == [[11, 12], [14], [16]])
        #expect(told.value[1].entries.first?.recipients == [UserID(rawValue: 7)])
        #expect(order.through == 16 && order.newest == 16 && order.waitingFor() == nil)
        // A read that finds nothing new tells nothing.
        order.caughtUp(through: 12, entries: [entry(12, 2)])
        #expect(told.value.count == 3 && order.through == 16)
    }
}
