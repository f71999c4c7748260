import IMClient
import IMProtocol
import Lifecycle
import Testing
import TestSupport

/// `IMClient.sendNotice` end to end: a bot's notice reaches its recipient's event stream
/// (and nobody else's), a retry after a lost answer stores one notice, and a refusal
/// arrives as its stable code.
@Suite("IMClient notices against a server")
struct NoticeIntegrationTests {
    private static let quick = EventStreamOptions(pollTimeout: 30, sleep: { _ in })

    @Test func aNoticeReachesItsRecipientOnceEvenWhenItsAnswerWasLost() async throws {
        try await withServer { server in
            let alice = try await registered(server, "alice")
            let bob = try await registered(server, "bob")
            let group = try await alice.createGroup(name: "ops", join: .open)
            try await bob.joinGroup("ops")
            let helper = try await server.createAccount("helper", bot: true).client
            let dropping = DropOneAnswerTransport { $0.method == "POST" && $0.url.hasSuffix("/notices") }
            let bot = IMClient(
                serverURL: server.baseURL, transport: dropping, token: helper.token,
                configuration: IMClient.Configuration(sleep: { _ in }))
            try await bot.joinGroup("ops")
            let question = try await alice.send("where are the runbooks?", to: .group("ops"))
            let streams = (alice: StreamCollector(), bob: StreamCollector())
            let consumers = [
                streams.alice.consume(alice.events(
                    cursor: MemoryCursorStore(cursor: try await freshCursor(server, token: alice.token)), options: Self.quick)),
                streams.bob.consume(bob.events(
                    cursor: MemoryCursorStore(cursor: try await freshCursor(server, token: bob.token)), options: Self.quick)),
            ]

            let sent = try await bot.sendNotice(
                in: group.id, to: try await alice.me().id, text: "in the wiki, under ops", clientID: "n-1",
                replyTo: question.id)
            let again = try await bot.sendNotice(
                in: group.id, to: try await alice.me().id, text: "in the wiki, under ops", clientID: "n-1",
                replyTo: question.id)
            // A message after it, to both: once bob has it, a notice to him would have come first.
            try await alice.send("thanks", to: .group("ops"))
            try await streams.alice.wait("the notice and the message") { $0.messages == ["thanks"] }
            try await streams.bob.wait("the message") { $0.messages == ["thanks"] }
            for consumer in consumers { consumer.cancel() }
            for consumer in consumers { await consumer.value }

            #expect(again == sent)
            #expect(dropping.requests.filter { $0.url.hasSuffix("/notices") }.count == 3)
            let notices = streams.alice.elements.compactMap { $0.event?.type == .notice ? $0.event?.notice : nil }
            #expect(notices == [sent])
            #expect(sent.replyTo == question.id && sent.sender == "helper")
            #expect(!streams.bob.elements.contains { $0.event?.type == .notice })
            #expect(try await alice.history(.group("ops")).messages.allSatisfy { $0.text != sent.text })
        }
    }

    @Test func aPersonsNoticeIsRefusedWithItsReason() async throws {
        try await withServer { server in
            let alice = try await registered(server, "alice")
            let bob = try await registered(server, "bob")
            let group = try await alice.createGroup(name: "ops", join: .open)
            try await bob.joinGroup("ops")
            let error = await #expect(throws: IMClientError.self) {
                try await alice.sendNotice(in: group.id, to: try await bob.me().id, text: "psst", clientID: "p-1")
            }
            #expect(error?.code == .api(.forbidden))
            #expect(error?.api?.reason == "not_a_bot")
        }
    }
}
