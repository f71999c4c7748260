import Foundation
import IMBots
import IMProtocol
import Lifecycle
import TestSupport
import Testing

extension ServerSuites {
    /// The moderator against a real server, on the runner's manual clock: spam is deleted
    /// for everyone, its sender muted, both cases in the mod-log; a raid of joins switches
    /// the group to join requests and slow mode, and ten quiet minutes switch it back.
    @Suite(.timeLimit(.minutes(3))) struct ModeratorEndToEndTests {
        static let bot = """
            bot: moderator
            account: { username: moderator, password: moderator-password, register: true }
            join: [ { group: lobby, policy: open } ]
            listen: ["group:lobby", "group:mods"]
            moderation: { log: "group:mods", moderators: [olga] }
            limits: { per_conversation: 1000/s, per_group: 1000/s, total: 1000/s }
            loop_guard: { max_replies_per_minute: 10000 }
            state: { raid: false }
            rules:
              - name: spam
                when: { group: lobby, text: { any_word: [scam], normalize: true } }
                do:
                  - delete: message
                  - strike: { counter: spam, decay: 24h, escalate: [ { mute: 10m } ] }
              - name: raid-start
                when: { event: member_joined, group: lobby, rate: { per: conversation, more_than: 5, within: 1m }, state: { raid: false } }
                do: [ { join_policy: approval }, { slow_mode: 30s }, { set: { raid: true } }, { report: "raid" } ]
              - name: raid-end
                when: { quiet: { event: [member_joined, join_requested], for: 10m }, group: lobby, state: { raid: true } }
                do: [ { join_policy: open }, { slow_mode: off }, { set: { raid: false } }, { report: "raid over" } ]
            """

        static func post(_ client: TestClient, _ text: String, in address: String) async throws -> TestClient.Answer {
            try await client.send("POST", "/v1/conversations/\(address)/messages", json: SendMessageRequest(text: text))
        }

        static func lines(_ client: TestClient, in address: String) async throws -> [String] {
            try await client.get("/v1/conversations/\(address)/messages?limit=200").decode(MessagePage.self)
                .messages.reversed().filter { $0.sender == "moderator" && $0.type != .system }.map(\.text)
        }

        static func info(_ client: TestClient) async throws -> ConversationInfo {
            try await client.get("/v1/groups/lobby").decode(ConversationInfo.self)
        }

        @Test func spamIsDeletedItsSenderMutedAndARaidFlipsTheGroupToApprovalAndBack() async throws {
            try await withBotsFolder { server, fixture, adminToken in
                try fixture.write(Self.bot, as: "moderator.yaml")
                let time = ManualTime(wallMilliseconds: SystemTime().wallMilliseconds)
                let configuration = fixture.configuration(server: server, adminToken: adminToken, time: time)
                let (olga, _) = try await server.client.register("olga")
                let (alice, _) = try await server.client.register("alice")
                let (mallory, _) = try await server.client.register("mallory")
                try await withRunningRunner(configuration, services: BotRunner.standardServices) { running in
                    // A bot's first start begins at the present: its first poll, after its set-up
                    // (which made group:lobby and group:mods, and invited olga).
                    try await server.awaitParkedPolls(1)
                    #expect(try await olga.send("POST", "/v1/groups/mods/join").status == 200)
                    try await eventually("olga is an admin of the mod-log") {
                        let members = try await olga.get("/v1/groups/mods/members").decode(MemberList.self).members
                        return members.contains { $0.user.username == "olga" && $0.role == .admin }
                    }
                    #expect(try await Self.info(alice).join == .open)
                    for member in [alice, mallory] {
                        #expect(try await member.send("POST", "/v1/groups/lobby/join").status == 200)
                    }

                    // Spam: deleted for everyone, the sender muted, two cases in the mod-log.
                    let spam = try await Self.post(mallory, "a real SC4M, trust me", in: "group:lobby")
                    #expect(spam.status == 201)
                    let id = try spam.decode(Message.self).id
                    try await eventually("the spam is gone for alice") {
                        let page = try await alice.get("/v1/conversations/group:lobby/messages").decode(MessagePage.self)
                        return page.messages.first { $0.id == id }?.deletedAt != nil
                    }
                    let history = try await alice.get("/v1/conversations/group:lobby/messages").decode(MessagePage.self)
                    #expect(history.messages.first { $0.id == id }?.text == "")
                    try await eventually("mallory is muted") {
                        try await Self.post(mallory, "hello?", in: "group:lobby").error?.code == .forbidden
                    }
                    try await eventually("both cases are in the mod-log") {
                        try await Self.lines(olga, in: "group:mods").count >= 2
                    }
                    #expect(try await Self.lines(olga, in: "group:mods") == [
                        "#1 delete @mallory in group:lobby, rule spam: \"a real SC4M, trust me\"",
                        "#2 mute 10m @mallory in group:lobby, rule spam (spam strike 1): \"a real SC4M, trust me\" (undo: /undo 2)",
                    ])

                    // A raid: four more joins make six within a minute.
                    for index in 1...4 {
                        let (raider, _) = try await server.client.register("raider\(index)")
                        #expect(try await raider.send("POST", "/v1/groups/lobby/join").status == 200)
                    }
                    try await eventually("the group takes join requests") {
                        let info = try await Self.info(alice)
                        return info.join == .approval && info.slowMode?.seconds == 30
                    }
                    let (late, _) = try await server.client.register("latecomer")
                    #expect(try await late.send("POST", "/v1/groups/lobby/join").status == 202)
                    try await eventually("the raid is in the mod-log") {
                        try await Self.lines(olga, in: "group:mods").contains { $0.hasSuffix("rule raid-start: \"raid\"") }
                    }

                    // Ten quiet minutes on the runner's clock end it.
                    try await eventually("the group is open again") {
                        time.advance(by: .seconds(61))
                        let info = try await Self.info(alice)
                        return info.join == .open && (info.slowMode?.seconds ?? 0) == 0
                    }
                    try await eventually("the end is in the mod-log") {
                        try await Self.lines(olga, in: "group:mods").contains { $0.hasSuffix("rule raid-end: \"raid over\"") }
                    }
                    _ = running
                }
            }
        }

        @Test func strikesAndCaseNumbersSurviveARunnerRestart() async throws {
            let bot = """
                bot: moderator
                account: { username: moderator, password: moderator-password, register: true }
                join: [ { group: lobby, policy: open } ]
                listen: ["group:lobby"]
                moderation: { log: "group:mods", moderators: [olga] }
                limits: { per_conversation: 1000/s, per_group: 1000/s, total: 1000/s }
                on_start: { backlog: all }
                rules:
                  - name: spam
                    when: { group: lobby, text: { any_word: [scam], normalize: true } }
                    do:
                      - delete: message
                      - strike: { counter: spam, decay: 24h, escalate: [ warn, { mute: 10m } ] }
                """
            try await withBotsFolder { server, fixture, adminToken in
                try fixture.write(bot, as: "moderator.yaml")
                let configuration = fixture.configuration(server: server, adminToken: adminToken)
                let (mallory, _) = try await server.client.register("mallory")
                let (olga, _) = try await server.client.register("olga")
                try await withRunningRunner(configuration, services: BotRunner.standardServices) { _ in
                    try await server.awaitParkedPolls(1)
                    #expect(try await olga.send("POST", "/v1/groups/mods/join").status == 200)
                    #expect(try await mallory.send("POST", "/v1/groups/lobby/join").status == 200)
                    #expect(try await Self.post(mallory, "scam one", in: "group:lobby").status == 201)
                    try await eventually("the warning came") {
                        try await Self.lines(mallory, in: "group:lobby").contains { $0.contains("this is a warning") }
                    }
                }
                // A new runner over the same state folder: the strike is still there.
                try await withRunningRunner(configuration, services: BotRunner.standardServices) { _ in
                    try await server.awaitParkedPolls(1)
                    #expect(try await Self.post(mallory, "scam two", in: "group:lobby").status == 201)
                    try await eventually("mallory is muted: her second strike") {
                        try await Self.post(mallory, "hello?", in: "group:lobby").error?.code == .forbidden
                    }
                    try await eventually("four cases in the mod-log") {
                        try await Self.lines(olga, in: "group:mods").count == 4
                    }
                    let log = try await Self.lines(olga, in: "group:mods")
                    #expect(log.map { String($0.prefix(10)) } == ["#1 delete ", "#2 warn @m", "#3 delete ", "#4 mute 10"])
                }
            }
        }

        @Test func aRestrictedNewcomerPostsOnlyAfterTheRightAnswerAndOneWhoDoesNotAnswerIsRemoved() async throws {
            let bot = """
                bot: moderator
                account: { username: moderator, password: moderator-password, register: true }
                join: [ { group: lobby, policy: open, new_members: restricted } ]
                listen: ["group:lobby", direct]
                moderation: { log: "group:mods", moderators: [olga] }
                limits: { per_conversation: 1000/s, per_group: 1000/s, total: 1000/s }
                rules:
                  - name: verify
                    when: { event: member_joined, group: lobby }
                    do: [ { verify: { text: "Hi {{member.username}}! Answer 'purple' to post.", answer: purple, within: 10m } } ]
                """
            try await withBotsFolder { server, fixture, adminToken in
                try fixture.write(bot, as: "moderator.yaml")
                let time = ManualTime(wallMilliseconds: SystemTime().wallMilliseconds)
                let configuration = fixture.configuration(server: server, adminToken: adminToken, time: time)
                let (olga, _) = try await server.client.register("olga")
                let (dave, _) = try await server.client.register("dave")
                let (erin, _) = try await server.client.register("erin")
                try await withRunningRunner(configuration, services: BotRunner.standardServices) { _ in
                    try await server.awaitParkedPolls(1)
                    #expect(try await olga.send("POST", "/v1/groups/mods/join").status == 200)
                    #expect(try await dave.send("POST", "/v1/groups/lobby/join").status == 200)
                    // Restricted from the join on, before the bot has seen it: no race with a first post.
                    let early = try await Self.post(dave, "first!", in: "group:lobby")
                    #expect(early.error?.code == .forbidden)
                    #expect(early.error?.reason == "restricted")
                    try await eventually("dave has his challenge") {
                        try await Self.lines(dave, in: "user:moderator") == ["Hi dave! Answer 'purple' to post."]
                    }
                    #expect(try await Self.post(dave, "green", in: "user:moderator").status == 201)
                    try await eventually("a hint") {
                        try await Self.lines(dave, in: "user:moderator").last
                            == "That is not the answer; please read the question again."
                    }
                    #expect(try await Self.post(dave, "PURPLE!", in: "user:moderator").status == 201)
                    try await eventually("dave may post") {
                        try await Self.post(dave, "hello all", in: "group:lobby").status == 201
                    }
                    #expect(try await Self.lines(dave, in: "user:moderator").last
                        == "Thank you! You can post in group:lobby now.")

                    // Erin does not answer: ten minutes on the runner's clock remove her, with a case.
                    #expect(try await erin.send("POST", "/v1/groups/lobby/join").status == 200)
                    try await eventually("erin has her challenge") {
                        try await Self.lines(erin, in: "user:moderator").count == 1
                    }
                    try await eventually("erin is removed") {
                        time.advance(by: .seconds(61))
                        let members = try await dave.get("/v1/groups/lobby/members").decode(MemberList.self).members
                        return !members.contains { $0.user.username == "erin" }
                    }
                    try await eventually("the kick is in the mod-log") {
                        try await Self.lines(olga, in: "group:mods").contains(
                            "#1 kick @erin in group:lobby, rule verify: \"no answer to the verification\"")
                    }
                    #expect(try await Self.post(dave, "still here", in: "group:lobby").status == 201)
                }
            }
        }
    }
}
