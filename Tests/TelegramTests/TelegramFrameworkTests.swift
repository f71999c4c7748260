import Foundation
import IMProtocol
import Testing
import TestSupport

/// python-telegram-bot 22, aiogram 3 and pyTelegramBotAPI, unmodified from PyPI, each
/// running an echo bot, a command bot and a group administration bot written as their
/// documentation writes them (`Bots/`, only the base URL and token taken from the
/// environment), as processes against a real server; a person on the other side uses the
/// Switchboard API.
@Suite(.timeLimit(.minutes(10)))
struct TelegramFrameworkTests {
    struct Framework: Sendable, CustomStringConvertible {
        var name: String
        /// The script prefix in `Bots/`.
        var prefix: String
        /// What the echo bot answers to `/start`, for alice.
        var greeting: String
        /// Whether the echo bot's echo replies to the message it echoes.
        var echoReplies: Bool
        var description: String { name }
    }

    static let frameworks = [
        Framework(name: "python-telegram-bot", prefix: "ptb", greeting: "Hi alice!", echoReplies: false),
        Framework(name: "aiogram", prefix: "aiogram", greeting: "Hello, alice!", echoReplies: false),
        Framework(name: "pyTelegramBotAPI", prefix: "telebot", greeting: "Hi there, I am EchoBot.", echoReplies: true),
    ]

    /// Runs `body` with a server, alice, and the framework's `script` running as `botName`.
    func withBot(
        _ script: String, named botName: String,
        _ body: (TestServer, TelegramBot, Person) async throws -> Void
    ) async throws {
        try await withServer { server in
            let bot = try await TelegramBot.create(botName, on: server)
            let alice = try await Person("alice", on: server)
            let process = try FrameworkBot.start(script, bot: bot, in: server.directory)
            do {
                // Started when its first getUpdates waits on the server (a framework's
                // imports take seconds of CPU, many more on a loaded machine).
                try await eventually("\(script) polling", hangGuard: .seconds(300)) {
                    if let status = process.process.exitStatus { throw TestFailure("\(script) exited with \(status)") }
                    return server.parkedPolls >= 1
                }
                try await body(server, bot, alice)
            } catch {
                await process.stop()
                Issue.record("\(script) logged:\n\(process.output.suffix(4000))")
                throw error
            }
            await process.stop()
        }
    }

    @Test(arguments: frameworks)
    func theEchoBotEchoesAndGreets(_ framework: Framework) async throws {
        try await withBot("\(framework.prefix)_echo.py", named: "echo") { _, bot, alice in
            let address = "user:echo"
            let text = "hello \(framework.name), see https://example.com and @alice #tag"
            let sent = try await alice.send(text, to: address)
            let echo = try await alice.waitForMessage(from: "echo", in: address) { $0 == text }
            #expect((echo.replyTo == sent.id) == framework.echoReplies)
            try await alice.send("/start", to: address)
            try await alice.waitForMessage(from: "echo", in: address) { $0.hasPrefix(framework.greeting) }
        }
    }

    @Test(arguments: frameworks)
    func theCommandBotAnswersCommandsWithArgumentsAndListsItsMenu(_ framework: Framework) async throws {
        try await withBot("\(framework.prefix)_commands.py", named: "commands") { _, bot, alice in
            let address = "user:commands"
            try await alice.send("/caps hello world", to: address)
            try await alice.waitForMessage(from: "commands", in: address) { $0 == "HELLO WORLD" }
            // The answer's markup (MarkdownV2, HTML or Markdown) is stored as plain text.
            try await alice.send("/sum 1 2 39", to: address)
            try await alice.waitForMessage(from: "commands", in: address) { $0 == "The sum is 42" }
            // set_my_commands at start-up, get_my_commands here.
            try await alice.send("/menu", to: address)
            try await alice.waitForMessage(from: "commands", in: address) { $0 == "Commands: /start, /caps, /sum, /menu" }
            try await alice.send("/start", to: address)
            try await alice.waitForMessage(from: "commands", in: address) { $0.contains("alice") }
        }
    }

    @Test(arguments: frameworks)
    func theGroupAdminBotWelcomesDeletesMutesAndBansForAdminsOnly(_ framework: Framework) async throws {
        try await withBot("\(framework.prefix)_groupadmin.py", named: "guard") { server, bot, alice in
            let bob = try await Person("bob", on: server)
            let group = "group:lobby"
            try await createGroup("lobby", owner: alice, inviting: "guard")
            // The bot takes the invitation as soon as it reads its updates (Telegram's bots
            // are added, not invited); its owner then makes it an admin.
            try await alice.waitFor("the bot joining") { person in
                person.events.contains { $0.type == .memberJoined && $0.user?.username == "guard" }
            }
            try await moderate(alice, "promote", "guard", in: "lobby")
            let joined = try await bob.client.send("POST", "/v1/groups/lobby/join")
            #expect(joined.status == 200, "\(joined.text)")
            try await alice.waitForMessage(from: "guard", in: group) { $0.contains("bob") && $0.contains("elcome") }

            // A member is told off: only admins may.
            let hello = try await alice.send("hello all", to: group)
            try await bob.send("/ban", to: group, replyTo: hello.id)
            try await alice.waitForMessage(from: "guard", in: group) { $0 == "Only the group's admins may do that." }

            // Delete: the replied-to message is gone for everyone.
            let spam = try await bob.send("buy spam", to: group)
            try await alice.send("/del", to: group, replyTo: spam.id)
            try await alice.waitFor("bob's spam deleted") { person in
                person.events.contains { $0.type == .messageDeleted && $0.message?.id == spam.id && $0.by == "guard" }
            }

            // Mute: bob can no longer post.
            let more = try await bob.send("more spam", to: group)
            try await alice.send("/mute", to: group, replyTo: more.id)
            try await alice.waitFor("bob muted") { person in
                person.events.contains { $0.type == .memberMuted && $0.user?.username == "bob" && $0.by == "guard" }
            }
            let muted = try await bob.client.send(
                "POST", "/v1/conversations/group:lobby/messages", json: SendMessageRequest(text: "can I speak?"))
            #expect(muted.status == 403 && muted.error?.reason == "muted", "\(muted.text)")

            // getChatAdministrators and getChatMemberCount.
            try await alice.send("/admins", to: group)
            try await alice.waitForMessage(from: "guard", in: group) { $0 == "Admins: alice, guard of 3 members" }

            // Ban: bob is out, and the bot says goodbye from the chat_member update.
            try await alice.send("/ban", to: group, replyTo: more.id)
            try await alice.waitFor("bob banned") { person in
                person.events.contains { $0.type == .memberBanned && $0.user?.username == "bob" && $0.by == "guard" }
            }
            try await alice.waitForMessage(from: "guard", in: group) {
                $0.contains("bob") && ($0.contains("left") || $0.contains("no longer"))
            }
        }
    }

    private func createGroup(_ name: String, owner: Person, inviting bot: String) async throws {
        let created = try await owner.client.send(
            "POST", "/v1/groups", json: CreateConversationRequest(name: name, join: .open))
        guard created.status == 201 else { throw TestFailure("create group: \(created.status) \(created.text)") }
        let invited = try await owner.client.send("POST", "/v1/groups/\(name)/invites", json: ["user": bot])
        guard invited.status == 201 else { throw TestFailure("invite: \(invited.status) \(invited.text)") }
    }

    private func moderate(_ actor: Person, _ action: String, _ user: String, in group: String) async throws {
        let answer = try await actor.client.send(
            "POST", "/v1/groups/\(group)/moderation", json: ["action": action, "user": user])
        guard answer.status == 200 else { throw TestFailure("\(action) \(user): \(answer.status) \(answer.text)") }
    }
}
