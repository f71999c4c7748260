import IMProtocol
import Testing

@testable import IMStore

/// The pieces of the cross-node feed that need no database: the notification format and
/// the ordering of committed ranges.
@Suite struct ClusterFeedUnitTests {
    @Test func feedNoticesRoundTripAndSplitLargeAudiencesAcrossPayloads() throws {
        let small = [ClusterNotice.Entry(position: 40, recipients: [UserID(rawValue: 3), UserID(rawValue: 9)])]
        let one = ClusterNotice.feedPayloads(node: "n1", first: 40, last: 41, entries: small)
        #expect(one.count == 1)
        #expect(ClusterNotice(one[0]) == .feed(node: "n1", first: 40, last: 41, entries: small, more: false))

        // 20,000 members with ids spread out: several payloads, none over the limit, that
        // together name every recipient once.
        let crowd = (0..<20_000).map { UserID(rawValue: Int64(1_000 + $0 * 37)) }
        let entries = [
            ClusterNotice.Entry(position: 7, recipients: crowd),
            ClusterNotice.Entry(position: 8, recipients: []),
            ClusterNotice.Entry(position: 9, recipients: [UserID(rawValue: 5)]),
        ]
        let payloads = ClusterNotice.feedPayloads(node: "n2", first: 7, last: 9, entries: entries)
        #expect(payloads.count > 1)
        #expect(payloads.allSatisfy { $0.utf8.count <= ClusterNotice.maxPayload })
        var recipients: [Int64: [UserID]] = [:]
        for (index, payload) in payloads.enumerated() {
            guard case .feed(let node, let first, let last, let parts, let more) = ClusterNotice(payload) else {
                Issue.record("not a feed notice: \(payload.prefix(80))")
                continue
            }
            #expect(node == "n2" && first == 7 && last == 9)
            #expect(more == (index < payloads.count - 1))
            for part in parts { recipients[part.position, default: []] += part.recipients }
        }
        #expect(recipients == [7: crowd, 9: [UserID(rawValue: 5)]])
    }

    @Test func claimAndRevocationNoticesRoundTripAndStrangersAreIgnored() {
        let claims = (1...2_000).map { PollClaim(tokenID: Int64($0) * 1_000_003, generation: Int64($0)) }
        let payloads = ClusterNotice.claimPayloads(node: "n3", claims)
        #expect(payloads.count > 1 && payloads.allSatisfy { $0.utf8.count <= ClusterNotice.maxPayload })
        let decoded = payloads.flatMap { payload -> [PollClaim] in
            guard case .claims("n3", let part) = ClusterNotice(payload) else { return [] }
            return part
        }
        #expect(decoded == claims)
        #expect(ClusterNotice(ClusterNotice.revokedPayload(node: "n4", epoch: 77)) == .revoked(node: "n4", epoch: 77))
        for stranger in ["", "x n1", "f n1 zz", "c n1 1:", "r n1", "f n1 1 2 0 3=a,,b"] {
            #expect(ClusterNotice(stranger) == nil, "\(stranger)")
        }
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
}
