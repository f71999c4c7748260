import Dispatch
import Foundation
import IMProtocol
import IMStore
import Lifecycle
import Synchronization
import Testing

@testable import IMServer

/// The committing thread only records an update; the hub's queue applies it (each
/// recipient's newest position, the polls it wakes). Meanwhile a poll sees the update
/// as if it had been applied, so nothing published is ever missed.
@Suite struct EventHubTests {
    /// A hub whose queue the test holds back until it says so.
    struct Held {
        let queue = DispatchQueue(label: "test.feed-wakes")
        let hub: EventHub

        init() {
            hub = EventHub(clock: ManualTime(), wakes: queue)
            hub.hearsEverything(after: 0)
            queue.suspend()
        }

        func release() {
            queue.resume()
            queue.sync {}
        }
    }

    /// What a parked poll heard, in order.
    final class Heard: Sendable {
        private let wakes = Mutex<[String]>([])
        var all: [String] { wakes.withLock { $0 } }

        func notify(_ wake: EventHub.Wake) {
            let name: String =
                switch wake {
                case .ready: "ready"
                case .published(let answers): "published \(answers.update.entries.map(\.position))"
                case .timedOut: "timedOut"
                case .replaced: "replaced"
                case .kickedOut: "kickedOut"
                case .loggedOut: "loggedOut"
                case .cancelled: "cancelled"
                }
            wakes.withLock { $0.append(name) }
        }
    }

    static func user(_ id: Int64) -> UserID { UserID(rawValue: id) }

    static func update(_ position: Int64, to users: ClosedRange<Int64>) -> FeedUpdate {
        FeedUpdate(entries: [FeedEntry(position: position, recipients: users.map(user))])
    }

    @Test func aPublishedUpdateIsSeenBeforeTheHubsQueueAppliesIt() {
        let held = Held()
        held.hub.publish(Self.update(10, to: 1...10_000))
        // Not applied yet, and already visible to every recipient and to no one else.
        #expect(held.hub.mayHaveEvents(for: Self.user(5_000), after: 9))
        #expect(!held.hub.mayHaveEvents(for: Self.user(5_000), after: 10))
        #expect(!held.hub.mayHaveEvents(for: Self.user(10_001), after: 9))
        let late = Heard()
        held.hub.park(tokenID: 1, userID: Self.user(7), after: 9, timeout: 30, notify: late.notify)
        #expect(late.all == ["ready"])
        held.release()
        // Applied: the same answers from the recorded positions.
        #expect(held.hub.mayHaveEvents(for: Self.user(5_000), after: 9))
        #expect(!held.hub.mayHaveEvents(for: Self.user(10_001), after: 9))
    }

    @Test func pollsParkedBeforeAnUpdateAreWokenByItOnTheQueueInCommitOrder() {
        let held = Held()
        let first = Heard()
        let second = Heard()
        let bystander = Heard()
        held.hub.park(tokenID: 1, userID: Self.user(1), after: 5, timeout: 30, notify: first.notify)
        held.hub.park(tokenID: 2, userID: Self.user(2), after: 5, timeout: 30, notify: second.notify)
        held.hub.park(tokenID: 3, userID: Self.user(3), after: 5, timeout: 30, notify: bystander.notify)
        held.hub.publish(Self.update(6, to: 1...1))
        held.hub.publish(Self.update(7, to: 1...2))
        // Recorded, not applied: nobody has been told yet.
        #expect(first.all.isEmpty && second.all.isEmpty)
        held.release()
        // Each woken by the first update that reached them, with that update's events.
        #expect(first.all == ["published [6]"])
        #expect(second.all == ["published [7]"])
        #expect(bystander.all.isEmpty)
        #expect(held.hub.parkedCount == 1)
    }

    @Test func aLargeAudienceWithFewPollsParkedWakesExactlyThoseAmongIt() {
        let held = Held()
        var heard: [Int64: Heard] = [:]
        for id in [3, 500, 9_999, 20_000] as [Int64] {
            let listener = Heard()
            heard[id] = listener
            held.hub.park(tokenID: id, userID: Self.user(id), after: 0, timeout: 30, notify: listener.notify)
        }
        // More recipients than parked polls: the hub looks the polls up in the audience.
        held.hub.publish(Self.update(1, to: 1...10_000))
        held.release()
        #expect(heard[3]?.all == ["published [1]"])
        #expect(heard[500]?.all == ["published [1]"])
        #expect(heard[9_999]?.all == ["published [1]"])
        #expect(heard[20_000]?.all == [])
        #expect(held.hub.parkedCount == 1)
    }
}
