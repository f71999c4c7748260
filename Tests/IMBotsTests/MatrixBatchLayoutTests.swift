import Foundation
@testable import IMBots
import MatrixClient
import Testing

/// A batch seen again after a crash keeps each event's position: the homeserver brings
/// the same events of each room from the same token, and those that came since, which
/// may sit in a room sorted before others.
@Suite struct MatrixBatchLayoutTests {
    func event(_ room: String, _ id: String) -> MatrixRoomEvent {
        MatrixRoomEvent(roomID: room, event: MatrixEvent(type: "m.room.message", eventID: id, sender: "@a:x", content: .object([:])))
    }

    @Test func theEventsOfTheFirstTimeKeepTheirPlacesAndNewOnesComeAfter() {
        let first = [event("!a", "a1"), event("!b", "b1"), event("!b", "b2")]
        let layout = MatrixBatchLayout(since: "s1", events: first)
        #expect(layout.rooms == [.init(id: "!a", events: 1), .init(id: "!b", events: 2)])
        // Seen again: a new event in the room sorted first, and a room new to the batch.
        let again = [event("!0", "z1"), event("!a", "a1"), event("!a", "a2"), event("!b", "b1"), event("!b", "b2"),
                     event("!b", "b3")]
        let ordered = layout.order(again).map(\.event.eventID)
        #expect(ordered == ["a1", "b1", "b2", "z1", "a2", "b3"])
        // And again after that: the second layout keeps the same order.
        let second = MatrixBatchLayout(since: "s1", events: layout.order(again))
        #expect(second.rooms == [.init(id: "!a", events: 1), .init(id: "!b", events: 2), .init(id: "!0", events: 1),
                                 .init(id: "!a", events: 1), .init(id: "!b", events: 1)])
        #expect(second.order(again + [event("!c", "c1")]).map(\.event.eventID) == ["a1", "b1", "b2", "z1", "a2", "b3", "c1"])
    }

    @Test func aBatchWithFewerEventsThanItsLayoutTakesWhatThereIs() {
        let layout = MatrixBatchLayout(since: "s1", events: [event("!a", "a1"), event("!a", "a2"), event("!b", "b1")])
        #expect(layout.order([event("!a", "a1"), event("!b", "b1")]).map(\.event.eventID) == ["a1", "b1"])
    }

    @Test func theLayoutIsKeptInTheJournalState() throws {
        var state = MatrixState()
        let layout = MatrixBatchLayout(since: "s9", events: [event("!a", "a1")])
        state.apply(.batch(layout))
        #expect(state.batch == layout)
        let decoded = try JSONDecoder().decode(MatrixState.self, from: JSONEncoder().encode(state))
        #expect(decoded.batch == layout)
        state.apply(.direct("@u:x", "!d"))
        #expect(state.batch == layout)
    }
}
