import IMClient
import IMProtocol
import Lifecycle
import Testing
import TestSupport

/// Sending, the sessions list, history paging and read markers end to end.
@Suite("IMClient conversations against a server")
struct ConversationIntegrationTests {
    @Test func sentMessagesShowUpWithUnreadCountsAndReadMarkers() async throws {
        try await withServer { server in
            let alice = try await registered(server, "alice")
            let bob = try await registered(server, "bob")

            let first = try await alice.send("hello bob", to: .user("bob"))
            try await alice.send("are you there?", to: .user("bob"), replyTo: first.id)
            let bobsList = try await bob.conversations()
            let row = try await bob.conversation(.user("alice"))
            let marker = try await bob.markRead(.user("alice"), seq: 2)
            let afterRead = try await bob.conversation(.id(row.id))

            #expect(first.seq == 1)
            #expect(first.sender == "alice")
            #expect(bobsList.count == 1)
            #expect(bobsList.first?.unread == 2)
            #expect(bobsList.first?.lastMessage?.text == "are you there?")
            #expect(row.address == .user("alice"))
            #expect(marker == 2)
            #expect(afterRead.unread == 0)
        }
    }

    @Test func historyPagesGoBackTenAtATime() async throws {
        try await withServer { server in
            let alice = try await registered(server, "alice")
            let bob = try await registered(server, "bob")
            try await alice.createGroup(name: "ops", join: .open)
            try await bob.joinGroup("ops")
            for number in 1...25 { try await alice.send("message \(number)", to: .group("ops")) }

            var pages: [[String]] = []
            var before: Int64?
            repeat {
                let page = try await bob.history(.group("ops"), before: before, limit: 10)
                pages.append(page.messages.filter { $0.type == .chat }.map(\.text))
                before = page.nextBefore
            } while before != nil

            let texts = pages.flatMap { $0 }
            #expect(pages.first?.first == "message 25")
            #expect(pages.first?.count == 10)
            #expect(texts == (1...25).reversed().map { "message \($0)" })
        }
    }

    @Test func aConversationNeverUsedIsNotFoundAndHasNoHistory() async throws {
        try await withServer { server in
            let alice = try await registered(server, "alice")
            _ = try await registered(server, "bob")

            let error = await #expect(throws: IMClientError.self) { try await alice.conversation(.user("bob")) }
            let history = try await alice.history(.user("bob"))

            #expect(error?.code == .api(.notFound))
            #expect(history.messages.isEmpty)
        }
    }

    @Test func aSendWhoseAnswerWasLostIsRetriedIntoExactlyOneMessage() async throws {
        try await withServer { server in
            _ = try await registered(server, "bob")
            let dropping = DropOneAnswerTransport { $0.method == "POST" && $0.url.hasSuffix("/messages") }
            let alice = IMClient(
                serverURL: server.baseURL, transport: dropping,
                configuration: IMClient.Configuration(sleep: { _ in }))
            try await alice.register(username: "alice", password: password)

            let sent = try await alice.send("exactly once", to: .user("bob"))
            let history = try await alice.history(.user("bob"))

            let posts = dropping.requests.filter { $0.method == "POST" && $0.url.hasSuffix("/messages") }
            #expect(posts.count == 2)
            #expect(posts[0].body == posts[1].body)
            #expect(history.messages.map(\.text) == ["exactly once"])
            #expect(history.messages.first?.id == sent.id)
        }
    }

    @Test func aRateLimitedSendWaitsAsToldAndThenGoesThrough() async throws {
        // The client's wait moves the server's clock: the budget refills without real time.
        let time = ManualTime()
        try await withServer(time: time, { config in
            config.rateLimits.enabled = true
            config.rateLimits.send = .init(rate: 1, burst: 1)
            config.rateLimits.general = .init(rate: 1000, burst: 1000)
        }) { server in
            _ = try await registered(server, "bob")
            let waits = SleepRecorder(advancing: time)
            let alice = makeClient(server, configuration: IMClient.Configuration(sleep: waits.sleep))
            try await alice.register(username: "alice", password: password)

            try await alice.send("first", to: .user("bob"))
            try await alice.send("second", to: .user("bob"))
            let history = try await alice.history(.user("bob"))

            #expect(waits.recorded == [.seconds(1)])
            #expect(history.messages.map(\.text) == ["second", "first"])
        }
    }

    @Test func theSenderEditsAndDeletesAndTheOtherSideSeesBoth() async throws {
        try await withServer { server in
            let alice = try await registered(server, "alice")
            let bob = try await registered(server, "bob")
            let sent = try await alice.send("helo", to: .user("bob"))

            let edited = try await alice.editMessage(sent.id, in: .user("bob"), text: "hello")
            let refused = await #expect(throws: IMClientError.self) {
                try await bob.editMessage(sent.id, in: .user("alice"), text: "bye")
            }
            let seen = try await bob.history(.user("alice")).messages.first
            let deleted = try await alice.deleteMessage(sent.id, in: .user("bob"))
            let row = try await bob.conversation(.user("alice"))

            #expect(edited.text == "hello" && edited.editedAt != nil)
            #expect(refused?.code == .api(.forbidden) && refused?.api?.reason == "not_sender")
            #expect(seen == edited)
            #expect(deleted.text.isEmpty && deleted.deletedAt != nil)
            #expect(row.lastMessage?.id == sent.id && row.lastMessage?.text == "")
        }
    }
}
