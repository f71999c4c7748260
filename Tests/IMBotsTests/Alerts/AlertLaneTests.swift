import Foundation
@testable import IMBots
import IMClient
import IMProtocol
import Lifecycle
import Synchronization
import TestSupport
import Testing

/// Alerts are a priority lane: ahead of the replies waiting in their conversation, first
/// to the bot's total budget, never shed; and a living message's edits do not pile up.
@Suite("Alerts' priority lane")
struct AlertLaneTests {
    static func reply(_ id: String) -> PendingMessage {
        BotPartsFixture.reply(to: .user("alice"), id: id)
    }

    static func alert(_ id: String) -> PendingMessage {
        PendingMessage(OutgoingMessage(to: .user("alice"), text: id, clientMessageID: id, rule: "alerts", action: .send),
                       position: 0, sheddable: false)
    }

    @Test("an alert goes ahead of the waiting replies of its conversation, behind earlier alerts")
    func ahead() async throws {
        let order = Mutex<[String]>([])
        let queues = WorkQueues<PendingMessage>(capacity: { 10 }, sheddable: { $0.sheddable }, priority: { $0.isAlert })
        for message in [Self.reply("r1"), Self.reply("r2"), Self.alert("a1"), Self.reply("r3"), Self.alert("a2")] {
            _ = queues.offer(message, key: "alice")
        }
        queues.start { message in
            order.withLock { $0.append(message.clientMessageID) }
            return true
        }
        try await eventually("all sent") { order.withLock { $0.count } == 5 }
        await queues.stop(drain: nil, time: ManualTime())
        #expect(order.withLock { $0 } == ["a1", "a2", "r1", "r2", "r3"])
    }

    @Test("a newer edit of a living message takes the place of one still waiting")
    func editsFold() async throws {
        let fixture = try await BotPartsFixture(transport: LimitedServer(limited: "nobody").transport)
        let outbox = Outbox(parts: fixture.parts, loggedIn: Latch())
        let ref = IncidentRef(book: "critical#0#group:oncall", groupKey: "g", part: .edit)
        func edit(_ text: String) -> PendingMessage {
            PendingMessage(incident: ref, to: .group("oncall"), text: text, clientMessageID: "e-\(text)", rule: "critical")
        }
        let edits = [edit("1 firing"), edit("2 firing"), edit("3 firing")]
        var change = AlertChange()
        change.messages = edits
        fixture.parts.journal.record(.alerts(change))
        #expect(outbox.offer(edits).isEmpty)
        #expect(outbox.count == 1)
        #expect(fixture.parts.journal.state.outbox.map(\.text) == ["3 firing"], "the replaced ones are done")
        #expect(outbox.hasRoom(for: [Self.alert("x")]))
    }

    @Test("while an alert waits for the total budget, replies elsewhere leave it the next token")
    func budget() {
        let time = ManualTime()
        let budget = SendBudget(BotDefinition.Limits(
            perConversation: Rate(count: 10, per: ConfigDuration(seconds: 1)),
            perGroup: Rate(count: 10, per: ConfigDuration(seconds: 1)),
            total: Rate(count: 1, per: ConfigDuration(seconds: 1))), time: time)
        #expect(budget.reserve(.user("bob")) == nil, "the one token")
        #expect(budget.reserve(.group("oncall"), alert: true) != nil, "the alert waits")
        time.advance(by: .seconds(1))
        #expect(budget.reserve(.user("carol")) != nil, "a reply leaves the token to the alert")
        #expect(budget.reserve(.group("oncall"), alert: true) == nil, "the alert takes it")
        time.advance(by: .seconds(1))
        #expect(budget.reserve(.user("carol")) == nil, "then replies go on")
    }
}
