import IMClient
import IMProtocol
import TestSupport
import Testing
@testable import switchboard

@Suite("switchboard tail")
struct TailCommandTests {
    static let password = "correct horse battery"

    /// `switchboard tail` running as `user` with `arguments`, once its first poll (which
    /// fixes where it starts) went out; stopped when `body` ends. `body` gets what tail
    /// prints and its task, and returns once it has seen what it waits for.
    static func withTail(_ server: TestServer, as user: String, _ arguments: [String] = [],
                         _ body: (CapturedText, Task<Int32, Never>) async throws -> Void) async throws {
        var sandbox = Sandbox()
        defer { sandbox.remove() }
        let (started, startedSignal) = AsyncStream<Void>.makeStream()
        sandbox.transport = InterceptingTransport(base: IMClient.sharedTransport) { request, response in
            if request.url.contains("/v1/events"), !request.url.contains("cursor=") { startedSignal.yield() }
            return response
        }
        let output = CapturedText()
        let context = sandbox.context(output: output, errors: CapturedText(), extra: ["SWITCHBOARD_PASSWORD": password])
        let tail = Task {
            await CommandContext.$current.withValue(context) {
                await CLI.main(["tail", "--server", server.baseURL, "--user", user] + arguments)
            }
        }
        defer { tail.cancel() }
        try await withHangGuard("tail's first poll") {
            for await _ in started { return }
        }
        try await body(output, tail)
    }

    @Test func aNewMessageIsPrintedUntilTheCommandIsStopped() async throws {
        try await withServer { server in
            _ = try await server.client.register("alice", password: Self.password)
            _ = try await server.client.register("bob", password: Self.password)
            try await Self.withTail(server, as: "bob") { output, tail in
                let sender = Sandbox()
                defer { sender.remove() }
                let sent = await sender.run(["send", "--server", server.baseURL, "--user", "alice", "--to", "user:bob",
                                             "are you there?"], environment: ["SWITCHBOARD_PASSWORD": Self.password])
                #expect(sent.status == 0, "\(sent.errors)")
                try await withHangGuard("the message in tail's output") {
                    await output.waitFor("\n")
                }
                tail.cancel()
                let status = try await withHangGuard("tail stopping") { await tail.value }

                let line = try #require(output.lines.first)
                #expect(line.hasSuffix(" user:alice alice: are you there?"))
                #expect(output.lines.count == 1)
                #expect(status == 0)
            }
        }
    }

    @Test func joinsLeavesAndRepliesWithWhatTheyAnswerArePrinted() async throws {
        try await withServer { server in
            let (alice, _) = try await server.client.register("alice", password: Self.password)
            let (carol, _) = try await server.client.register("carol", password: Self.password)
            let (bob, _) = try await server.client.register("bob", password: Self.password)
            #expect(try await alice.send("POST", "/v1/groups", json: CreateConversationRequest(name: "team", join: .open))
                .status == 201)
            #expect(try await bob.send("POST", "/v1/groups/team/join").status == 200)
            try await Self.withTail(server, as: "bob", ["group:team"]) { output, tail in
                #expect(try await carol.send("POST", "/v1/groups/team/join").status == 200)
                let first = try await alice.send("POST", "/v1/conversations/group:team/messages",
                                                 json: SendMessageRequest(text: "who takes the pager this week?"))
                let id = try first.decode(Message.self).id
                #expect(try await carol.send("POST", "/v1/conversations/group:team/messages",
                                             json: SendMessageRequest(text: "me", replyTo: id)).status == 201)
                #expect(try await carol.send("POST", "/v1/groups/team/leave").status == 204)
                try await withHangGuard("carol's leaving in tail's output") {
                    await output.waitFor("carol left the group\n")
                }
                tail.cancel()
                _ = try await withHangGuard("tail stopping") { await tail.value }

                let lines = output.lines.map { $0.split(separator: " ", maxSplits: 2).last.map(String.init) ?? $0 }
                #expect(lines == [
                    "group:team * carol joined the group",
                    "group:team alice: who takes the pager this week?",
                    "group:team carol (replying to alice: \"who takes the pager this week?\"): me",
                    "group:team * carol left the group",
                ])
            }
        }
    }
    /// Issue 26 §6: a reply, an edit and a deletion made from the shell with `send`, and
    /// seen as they happen in `tail --ids`, which shows the ids `send` takes.
    @Test func sendRepliesEditsAndDeletesFromAShellAndTailShowsEachAsItHappens() async throws {
        try await withServer { server in
            let (alice, _) = try await server.client.register("alice", password: Self.password)
            let (bob, _) = try await server.client.register("bob", password: Self.password)
            #expect(try await alice.send("POST", "/v1/groups", json: CreateConversationRequest(name: "team", join: .open))
                .status == 201)
            #expect(try await bob.send("POST", "/v1/groups/team/join").status == 200)
            try await Self.withTail(server, as: "bob", ["--ids", "group:team"]) { output, tail in
                let sender = Sandbox()
                defer { sender.remove() }
                func send(_ arguments: [String]) async -> CLIResult {
                    await sender.run(["send", "--server", server.baseURL, "--user", "alice", "--to", "group:team"] + arguments,
                                     environment: ["SWITCHBOARD_PASSWORD": Self.password])
                }
                let first = try await alice.send("POST", "/v1/conversations/group:team/messages",
                                                 json: SendMessageRequest(text: "who takes the pager?"))
                let id = try first.decode(Message.self).id
                let reply = await send(["--reply-to", "\(id)", "I do"])
                #expect(reply.status == 0, "\(reply.errors)")
                #expect(reply.outputLines.first?.hasSuffix(", replying to message \(id)") == true, "\(reply.outputLines)")
                // Each step once tail has shown the one before, as someone watching does: a
                // tail that reads an edit only after the deletion shows no deleted text.
                try await withHangGuard("the reply in tail's output") { await output.waitFor("I do") }
                let edit = await send(["--edit", "\(id)", "who takes the pager next week?"])
                #expect(edit.outputLines == ["edited message \(id) in group:team"], "\(edit.errors)")
                try await withHangGuard("the edit in tail's output") { await output.waitFor("next week?") }
                let delete = await send(["--delete", "\(id)"])
                #expect(delete.outputLines == ["deleted message \(id) in group:team"], "\(delete.errors)")
                try await withHangGuard("the deletion in tail's output") {
                    await output.waitFor("deleted their message")
                }
                tail.cancel()
                _ = try await withHangGuard("tail stopping") { await tail.value }
                let lines = output.lines.map { $0.split(separator: " ", maxSplits: 2).last.map(String.init) ?? $0 }
                #expect(lines.count == 4, "\(lines)")
                #expect(lines.first == "group:team [\(id)] alice: who takes the pager?")
                #expect(lines.dropFirst().first?.hasSuffix(
                    " alice (replying to alice: \"who takes the pager?\"): I do") == true, "\(lines)")
                #expect(lines.dropFirst(2).first
                    == "group:team [\(id)] alice (edited, was \"who takes the pager?\"): who takes the pager next week?")
                #expect(lines.last == "group:team * alice deleted their message \"who takes the pager next week?\"")
            }
        }
    }

    @Test func misusedSendOptionsAreUsageErrors() async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let both = await sandbox.run(["send", "--server", "http://127.0.0.1:9", "--user", "alice", "--to", "group:team", "--edit", "3", "--delete", "3"])
        #expect(both.status == 2)
        #expect(both.errors.contains("give one of --reply-to, --edit and --delete, not --edit and --delete"))
        let text = await sandbox.run(["send", "--server", "http://127.0.0.1:9", "--user", "alice", "--to", "group:team", "--delete", "3", "oops"])
        #expect(text.errors.contains("--delete takes no text"))
        let id = await sandbox.run(["send", "--server", "http://127.0.0.1:9", "--user", "alice", "--to", "group:team", "--reply-to", "x", "hi"])
        #expect(id.errors.contains("--reply-to 'x' is not a message id"))
    }

    @Test func aBanIsPrintedAsTheServersNoticeOrElseAsWhatHappened() {
        let group = ConversationRef(id: ConversationID(rawValue: 3), kind: .group, address: .group("team"))
        let dave = User(id: UserID(rawValue: 5), username: "dave", nickname: "Dave", createdAt: Timestamp(milliseconds: 0))
        let at = Timestamp(milliseconds: 1_736_157_600_000)
        var lines = TailLines()
        let bare = lines.line(for: Event(position: 1, type: .memberBanned, at: at, conversation: group,
                                         user: dave, by: "alice"))
        #expect(bare?.hasSuffix(" group:team * dave was banned") == true, "\(bare ?? "nothing")")
        let notice = Message(id: MessageID(rawValue: 9), conversationID: group.id, seq: 4, type: .system,
                             sender: "alice", senderID: UserID(rawValue: 2), text: "alice banned dave: spam",
                             createdAt: at)
        let told = lines.line(for: Event(position: 2, type: .memberBanned, at: at, conversation: group,
                                         message: notice, user: dave, by: "alice"))
        #expect(told?.hasSuffix(" group:team * alice banned dave: spam") == true, "\(told ?? "nothing")")
    }

    @Test func anEditReadAfterItsMessageWasDeletedIsNotPrintedAndTheDeletionQuotesTheMessage() {
        let group = ConversationRef(id: ConversationID(rawValue: 3), kind: .group, address: .group("team"))
        let at = Timestamp(milliseconds: 1_736_157_600_000)
        var lines = TailLines()
        var message = Message(id: MessageID(rawValue: 9), conversationID: group.id, seq: 4, type: .chat,
                              sender: "alice", senderID: UserID(rawValue: 2), text: "hello", createdAt: at)
        #expect(lines.line(for: Event(position: 1, type: .message, at: at, conversation: group, message: message)) != nil)
        // The feed gives the message as it is now: deleted, its text gone.
        message.text = ""
        message.deletedAt = at
        message.editedAt = at
        let edit = lines.line(for: Event(position: 2, type: .messageEdited, at: at, conversation: group, message: message))
        #expect(edit == nil, "\(edit ?? "nothing")")
        let deletion = lines.line(for: Event(position: 3, type: .messageDeleted, at: at, conversation: group,
                                             message: message, by: "alice"))
        #expect(deletion?.hasSuffix(" group:team * alice deleted their message \"hello\"") == true, "\(deletion ?? "nothing")")
    }
}
