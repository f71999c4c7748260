import Foundation
@testable import IMBots
import IMClient
import IMProtocol
import Lifecycle
import Logging
import Synchronization
import TestSupport
import Testing

/// Every way in is kept by one `RunLedger`: audited and counted, journaled in one
/// record, offered to the outbox, and a message the outbox cannot take done and
/// reported, whether a feed event or the alert desk decided it, or a last run left it.
@Suite(.timeLimit(.minutes(1))) struct RunLedgerTests {
    static let bot = """
        bot: testbot
        account: { username: testbot, password: secret-password }
        limits: { per_conversation: 1000/s, per_group: 1000/s, total: 1000/s, queue: 3 }
        webhooks: [ { path: /hooks/alertmanager, format: alertmanager, secret: t0ken } ]
        rules:
          - { name: answer, when: { direct: true }, do: [ { reply: "re: {{message.text}}" } ] }
          - name: page
            when: { webhook: /hooks/alertmanager }
            do: [ { send: { to: "user:alice", text: "{{payload.status}}: {{payload.commonLabels.alertname}}" } } ]
        """

    /// An outbox that sends nothing (never logged in), its queue for alice full of alerts.
    static func fullOfAlerts(_ fixture: BotPartsFixture) -> Outbox {
        let outbox = Outbox(parts: fixture.parts, loggedIn: Latch())
        let handle = BotHandle(parts: fixture.parts, outbox: outbox)
        for index in 1...3 {
            #expect(handle.queueAlert(OutgoingMessage(to: .user("alice"), text: "alert \(index)",
                                                      clientMessageID: "a\(index)", rule: "page", action: .send)))
        }
        return outbox
    }

    static func metric(_ fixture: BotPartsFixture, _ name: String) -> String? {
        let prefix = "switchboard_bot_\(name){bot=\"testbot\"} "
        return fixture.parts.metrics.render().split(separator: "\n").first { $0.hasPrefix(prefix) }
            .map { String($0.dropFirst(prefix.count)) }
    }

    @Test func aFeedEventsReplyTheOutboxCannotTakeIsDoneAndReportedAsAnAlertStepsIs() async throws {
        let fixture = try await BotPartsFixture(bot: Self.bot, transport: LimitedServer(limited: "nobody").transport)
        let outbox = Self.fullOfAlerts(fixture)
        let session = BotSession(identity: BotContext.Identity(username: "testbot"), startedAt: fixture.time.wallMilliseconds)
        let handler = EventHandler(
            parts: fixture.parts, session: session,
            senders: SenderDirectory(client: fixture.parts.client, time: fixture.time, bot: "testbot") { _ in },
            outbox: outbox, lanes: ConversationLanes(parts: fixture.parts, session: session),
            http: HTTPActionClient(allow: HTTPAllowList(), time: fixture.time))
        var event = Bots.message("hello", position: 7).event
        event.at = Timestamp(milliseconds: fixture.time.wallMilliseconds)
        await handler.receive(event)

        // The reply is journaled with its event, then done: nothing stays pending unsent.
        let journal = fixture.parts.journal.state
        #expect(journal.outbox.map(\.clientMessageID) == ["a1", "a2", "a3"])
        #expect(journal.handledThrough == 7)
        #expect(fixture.auditLines.contains { $0.contains(#""outcome":"shed""#) && $0.contains("re: hello") })
        #expect(fixture.auditLines.contains { $0.contains(#""rule":"answer""#) && $0.contains(#""outcome":"performed""#) })
        #expect(fixture.parts.metrics.value(bot: "testbot", rule: "answer", .matched) == 1)
        #expect(Self.metric(fixture, "events_total") == "1")

        // An alert desk's step whose message the full queue refuses: journaled, then done.
        let desk = AlertDesk(parts: fixture.parts, outbox: outbox)
        var change = AlertChange()
        change.messages = [PendingMessage(OutgoingMessage(to: .user("alice"), text: "alert 4", clientMessageID: "a4",
                                                          rule: "page", action: .send), position: 0, sheddable: false)]
        #expect(await desk.commit(change, waitForRoom: false))
        #expect(fixture.parts.journal.state.outbox.map(\.clientMessageID) == ["a1", "a2", "a3"])
        #expect(fixture.auditLines.contains { $0.contains(#""outcome":"refused""#) && $0.contains("alert 4") })
        #expect(Self.metric(fixture, "alerts_refused_total") == "1")
        #expect(Self.metric(fixture, "events_total") == "1", "no feed event: none counted")
    }

    @Test func aWebhookStepThatWaitsForRoomIsAuditedAndCountedOnceWhenItIsTaken() async throws {
        let fixture = try await BotPartsFixture(bot: Self.bot, transport: LimitedServer(limited: "nobody").transport)
        let outbox = Self.fullOfAlerts(fixture)
        let body = AlertBodies.diskFull([("db-7", .firing)])
        fixture.parts.journal.record(.webhook(WebhookDelivery(
            number: 1, path: "/hooks/alertmanager", format: .alertmanager, body: String(decoding: body, as: UTF8.self),
            receivedAt: fixture.time.wallMilliseconds, rules: ["page"], marks: [])))
        let desk = AlertDesk(parts: fixture.parts, outbox: outbox)

        // No room for its alert: the step is not taken, and runs again later.
        #expect(await desk.processInbox() == false)
        #expect(await desk.processInbox() == false)
        #expect(fixture.parts.journal.state.alerts.inbox.count == 1)
        #expect(fixture.parts.metrics.value(bot: "testbot", rule: "page", .matched) == 0)
        #expect(!fixture.auditLines.contains { $0.contains(#""rule":"page""#) }, "a step not taken is not audited")

        // Room (a larger queue): taken once, audited and counted once.
        fixture.parts.rules.replace(with: try Bots.load(Self.bot.replacingOccurrences(of: "queue: 3", with: "queue: 10")))
        #expect(await desk.processInbox())
        #expect(fixture.parts.journal.state.alerts.inbox.isEmpty)
        #expect(fixture.parts.journal.state.outbox.map(\.text).last == "firing: DiskFull")
        #expect(fixture.parts.metrics.value(bot: "testbot", rule: "page", .matched) == 1)
        #expect(fixture.auditLines.filter { $0.contains(#""rule":"page""#) }.count == 1)
    }

    @Test func aStartOffersWhatTheLastRunLeftAndWhatAFullQueueRefusesIsDoneAndReported() async throws {
        // The last run left five alerts for alice; the queue now takes three.
        let time = ManualTime()
        let definition = try Bots.load(Self.bot)
        var left = JournalState()
        left.outbox = (1...5).map { index in
            PendingMessage(OutgoingMessage(to: .user("alice"), text: "alert \(index)", clientMessageID: "a\(index)",
                                           rule: "page", action: .send), position: 0, sheddable: false)
        }
        let store = MemoryJournalStore(snapshot: left)
        let folder = TestServer.temporaryDirectory()
        let logger = Logger(label: "test", level: .error, sink: LogWatch())
        let metrics = RunnerMetrics()
        let reporter = BotReporter(bot: "testbot", metrics: metrics,
                                   audit: try AuditLog(path: folder + "/audit.log", metrics: metrics, logger: logger),
                                   logger: logger, time: time)
        let unreachable = FakeTransport { request in
            throw TransportError(code: .cannotConnect, message: "no server in this test", requestNotSent: true)
        }
        let supervisor = try await BotSupervisor(
            definition: definition,
            configuration: RunnerConfiguration(serverURL: "http://127.0.0.1:1", botsDirectory: folder,
                                               stateDirectory: folder, environment: [:], time: time),
            transport: unreachable, http: HTTPActionClient(allow: HTTPAllowList(), time: time),
            writer: JournalWriter(time: time), reporter: reporter, routes: RunnerRoutes(), groups: SharedGroups(),
            makers: [], store: store, password: "secret-password", device: "test")
        let stopped = Mutex(false)
        let task = Task {
            try? await supervisor.run()
            stopped.withLock { $0 = true }
        }
        let journal = try #require(supervisor.consoleJournal)
        try await eventually("the leftovers offered") { journal.state.outbox.count == 3 }
        #expect(journal.state.outbox.map(\.clientMessageID) == ["a1", "a2", "a3"], "the refused ones are done")
        let audit = (try? String(contentsOfFile: folder + "/audit.log", encoding: .utf8)) ?? ""
        #expect(audit.split(separator: "\n").filter { $0.contains(#""outcome":"refused""#) }.count == 2)
        #expect(metrics.render().contains("switchboard_bot_alerts_refused_total{bot=\"testbot\"} 2"))
        task.cancel()
        // The outbox drains for up to its drain time, on the test's clock.
        try await eventually("the bot stopped") {
            time.advance(by: Outbox.drainTime)
            return stopped.withLock { $0 }
        }
    }
}
