#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import IMBots
import IMProtocol
import TestSupport
import Testing

extension ServerSuites {
    /// Issue 26's second newcomer bot file, end to end with a real runner process against
    /// a real server: a moderator set up without operator steps, newcomers answering a
    /// question in a direct message, a strike ladder (an edited-in word counts), raid mode
    /// with its join requests approved (and later ones denied) together, and every case in
    /// the mod-log.
    @Suite(.timeLimit(.minutes(5))) struct NewcomerModeratorTests {
        static let bot = """
            bot: moderator
            account: { username: moderator, password: moderator-password }
            join: [ { group: lobby, policy: open, new_members: restricted } ]
            listen: ["group:lobby", "group:mods", direct]
            moderation: { log: "group:mods", moderators: [olga] }
            limits: { per_conversation: 1000/s, per_group: 1000/s, total: 1000/s }
            loop_guard: { max_replies_per_minute: 1000 }
            state: { raid: false }
            rules:
              - name: verify
                when: { event: member_joined, group: lobby }
                do: [ { verify: { text: "Hi {{member.username}}! What colour is a clear sky? Answer here.", answer: blue, within: 10m } } ]
              - name: banned-words
                when: { group: lobby, text: { any_word: ["free money"], normalize: true } }
                do:
                  - delete: message
                  - strike: { counter: spam, decay: 24h, escalate: [ { warn: "@{{sender.username}}: strike {{strike.count}}, next {{strike.next}}" }, { mute: 2s }, ban ] }
                  - stop: true
                examples:
                  - { from: mallory, in: "group:lobby", text: "hi", edit: "free money!", expect: { delete: 1, warn: "@mallory: strike 1, next mute 2s" } }
                  - { from: mallory, in: "group:lobby", texts: ["free money", "FREE m0ney", "fr33 money"], expect: { warn: 1, mute: 1, ban: 1 } }
              - name: raid-start
                when: { event: member_joined, group: lobby, rate: { per: conversation, more_than: 5, within: 1m }, state: { raid: false } }
                do:
                  - join_policy: approval
                  - set: { raid: true }
                  - report: { case: raid, text: "more than 5 joins within a minute" }
              - name: approve-all
                when: { group: mods, command: approve-all, from: { role: admin } }
                do: [ { approve: { all: true, group: lobby } } ]
              - name: deny-all
                when: { group: mods, command: deny-all, from: { role: admin } }
                do: [ { deny: { all: true, group: lobby } } ]
              - name: strikes
                when: { group: mods, command: { name: strikes, args: required }, from: { role: admin } }
                do: [ { strikes: "{{args}}" } ]
            """

        static func post(_ client: TestClient, _ text: String, in address: String) async throws -> TestClient.Answer {
            try await client.send("POST", "/v1/conversations/\(address)/messages", json: SendMessageRequest(text: text))
        }

        static func texts(_ client: TestClient, from sender: String = "moderator", in address: String) async throws -> [String] {
            try await client.get("/v1/conversations/\(address)/messages?limit=200").decode(MessagePage.self)
                .messages.reversed().filter { $0.sender == sender && $0.type != .system }.map(\.text)
        }

        /// Joins group:lobby and answers the bot's question, as a newcomer does.
        static func verified(_ client: TestClient, _ name: String) async throws {
            #expect(try await client.send("POST", "/v1/groups/lobby/join").status == 200)
            try await eventually("\(name)'s question", hangGuard: .seconds(60)) {
                try await texts(client, in: "user:moderator").first?.hasPrefix("Hi \(name)! What colour") == true
            }
            #expect(try await post(client, "blue", in: "user:moderator").status == 201)
            try await eventually("\(name) may post", hangGuard: .seconds(60)) {
                try await texts(client, in: "user:moderator").last == "Thank you! You can post in group:lobby now."
            }
        }

        @Test func aModeratorANewcomerALadderAndARaidWithARunnerProcess() async throws {
            let binary = try #require(switchboardExecutable, "build the switchboard executable first (swift build)")
            #expect(await ExampleRunner.run(bot: try Bots.load(Self.bot)).allSatisfy { $0.passed }, "the file's examples")
            try await withBotsFolder { server, fixture, _ in
                try await server.createAccount("moderator", password: "moderator-password", bot: true)
                let (olga, _) = try await server.client.register("olga")
                try fixture.write(Self.bot, as: "moderator.yaml")
                let config = try fixture.processConfig(server: server.baseURL)
                let runner = try SpawnedProcess(binary, ["run", "--config", config])
                do {
                    try await eventually("the bot runs", hangGuard: .seconds(60)) {
                        runner.errors.contains("bot moderator is running")
                    }
                    try await exercise(server, olga)
                    #expect(try await runner.stop(SIGTERM) == 0, "\(runner.errors)")
                } catch {
                    Issue.record("\(error)\n\(runner.errors.suffix(3000))")
                    if runner.exitStatus == nil { _ = try? await runner.stop(SIGKILL) }
                }
            }
        }

        func exercise(_ server: TestServer, _ olga: TestClient) async throws {
            // The moderator: invited into both groups, made their admin, never asked anything.
            try await eventually("olga's invitations", hangGuard: .seconds(60)) {
                let invites = try await olga.get("/v1/me/invites").text
                return invites.contains(#""group":"mods""#) && invites.contains(#""group":"lobby""#)
            }
            for group in ["mods", "lobby"] {
                #expect(try await olga.send("POST", "/v1/groups/\(group)/join").status == 200)
            }
            try await eventually("olga is an admin of both", hangGuard: .seconds(60)) {
                let mods = try await olga.get("/v1/groups/mods/members").decode(MemberList.self).members
                let lobby = try await olga.get("/v1/groups/lobby/members").decode(MemberList.self).members
                return mods.contains { $0.user.username == "olga" && $0.role == .admin }
                    && lobby.contains { $0.user.username == "olga" && $0.role == .admin }
            }
            #expect(try await Self.post(olga, "welcome, all", in: "group:lobby").status == 201)
            #expect(try await Self.texts(olga, in: "user:moderator").isEmpty)

            // Newcomers answer the question in a direct message; until then the refusal says so.
            let (dave, _) = try await server.client.register("dave")
            #expect(try await dave.send("POST", "/v1/groups/lobby/join").status == 200)
            let early = try await Self.post(dave, "first!", in: "group:lobby")
            #expect(early.error?.reason == "restricted")
            #expect(early.error?.message.contains("answer the question its moderator bot sent you") == true)
            try await eventually("dave's question", hangGuard: .seconds(60)) {
                try await !Self.texts(dave, in: "user:moderator").isEmpty
            }
            #expect(try await Self.post(dave, "blue", in: "user:moderator").status == 201)
            try await eventually("dave may post", hangGuard: .seconds(60)) {
                try await Self.post(dave, "hello all", in: "group:lobby").status == 201
            }

            // The ladder: an edit into banned words is a strike, then a mute, then a ban.
            let (mallory, _) = try await server.client.register("mallory")
            try await Self.verified(mallory, "mallory")
            let hello = try await Self.post(mallory, "hello everyone", in: "group:lobby").decode(Message.self)
            #expect(try await mallory.send("PATCH", "/v1/conversations/group:lobby/messages/\(hello.id)",
                                           json: EditMessageRequest(text: "hello everyone, free money!")).status == 200)
            try await eventually("the edit deleted and warned", hangGuard: .seconds(60)) {
                let page = try await dave.get("/v1/conversations/group:lobby/messages?limit=200").decode(MessagePage.self)
                return page.messages.first { $0.id == hello.id }?.deletedAt != nil
                    && page.messages.contains { $0.text == "@mallory: strike 1, next mute 2s" }
            }
            #expect(try await Self.post(mallory, "FREE m0ney here", in: "group:lobby").status == 201)
            try await eventually("mallory is muted", hangGuard: .seconds(60)) {
                try await Self.post(mallory, "hm?", in: "group:lobby").error?.reason == "muted"
            }
            try await eventually("the mute ends", hangGuard: .seconds(60)) {
                try await Self.post(mallory, "fr33 money, really", in: "group:lobby").status == 201
            }
            try await eventually("mallory is banned, and told so", hangGuard: .seconds(60)) {
                let refused = try await Self.post(mallory, "let me in", in: "group:lobby")
                return refused.error?.reason == "banned" && refused.error?.message.hasPrefix("you are banned from group 'lobby'") == true
            }

            // A raid: joins until the group takes requests; those waiting are approved together.
            var waiting: [TestClient] = []
            for index in 1...12 where waiting.count < 2 {
                let (raider, _) = try await server.client.register("raider\(index)")
                let joined = try await raider.send("POST", "/v1/groups/lobby/join")
                if joined.status == 202 { waiting.append(raider) }
            }
            #expect(waiting.count == 2, "the group took join requests")
            #expect(try await Self.post(olga, "/approve-all", in: "group:mods").status == 201)
            try await eventually("the waiting raiders are members", hangGuard: .seconds(60)) {
                for raider in waiting where try await raider.get("/v1/conversations/group:lobby/messages").status != 200 {
                    return false
                }
                return true
            }
            // The group still takes requests: a later one is denied with the rest.
            let (late, _) = try await server.client.register("raider13")
            #expect(try await late.send("POST", "/v1/groups/lobby/join").status == 202)
            #expect(try await Self.post(olga, "/deny-all", in: "group:mods").status == 201)
            try await eventually("the late request is denied", hangGuard: .seconds(60)) {
                try await !olga.get("/v1/groups/lobby/requests").text.contains("raider13")
            }
            #expect(try await late.get("/v1/conversations/group:lobby/messages").status != 200, "denied, not a member")

            // /strikes, and every case in the mod-log.
            #expect(try await Self.post(olga, "/strikes @mallory", in: "group:mods").status == 201)
            try await eventually("the strikes and the cases", hangGuard: .seconds(60)) {
                let log = try await Self.texts(olga, in: "group:mods")
                return log.contains { $0.hasPrefix("Strikes of @mallory:\nspam: 3 points") }
                    && log.contains { $0.contains(" approve every waiting request in group:lobby, rule approve-all") }
                    && log.contains { $0.contains(" deny every waiting request in group:lobby, rule deny-all") }
            }
            let log = try await Self.texts(olga, in: "group:mods")
            for expected in ["delete @mallory in group:lobby, rule banned-words: \"hello everyone, free money!\"",
                             "warn @mallory in group:lobby, rule banned-words (spam strike 1)",
                             "mute 2s @mallory in group:lobby, rule banned-words (spam strike 2)",
                             "ban @mallory in group:lobby, rule banned-words (spam strike 3)",
                             "raid in group:lobby, rule raid-start: \"more than 5 joins within a minute\""] {
                #expect(log.contains { $0.contains(expected) }, "\(expected) not in \(log)")
            }
        }
    }
}
