import Foundation
import IMBots
import IMProtocol
import Testing

@Suite struct LoaderTests {
    @Test func aMinimalBotGetsEveryDefault() throws {
        let bot = try Bots.load("""
            bot: minimal
            account: { username: Minimal, password: secret-password }
            """)
        #expect(bot.name == "minimal")
        #expect(bot.file == "bot.yaml")
        #expect(bot.account == BotDefinition.Account(username: "minimal", password: "secret-password"))
        #expect(bot.profile == nil)
        #expect(bot.listen.isEmpty)
        #expect(bot.backlog == .newerThan(ConfigDuration(seconds: 600)))
        #expect(bot.limits == .standard)
        #expect(bot.maxRepliesPerMinute == 20)
        #expect(bot.initialState.isEmpty)
        #expect(bot.timezone == nil)
        #expect(bot.rules.isEmpty)
    }

    @Test func everySectionIsRead() throws {
        let bot = try Bots.load("""
            bot: full
            account: { username: full, password: secret-password, register: true, nickname: Full Bot }
            profile: { nickname: Full, signature: "Hi there", attrs: { team: ops } }
            listen: [direct, "group:ops", "room:*"]
            on_start: { backlog: all }
            limits: { per_conversation: 2/s, per_group: 5/10s, total: 100/h }
            loop_guard: { max_replies_per_minute: 5 }
            state: { count: 3, names: [a, b] }
            timezone: Asia/Tokyo
            rules:
              - { name: r, mode: shadow, when: { direct: true }, do: [ { reply: hi } ] }
            """)
        #expect(bot.account.register)
        #expect(bot.account.nickname == "Full Bot")
        #expect(bot.profile == BotDefinition.Profile(nickname: "Full", signature: "Hi there", attrs: ["team": "ops"]))
        #expect(bot.listen == [.direct, .group("ops"), .anyRoom])
        #expect(bot.backlog == .all)
        #expect(bot.limits.perConversation.description == "2/s")
        #expect(bot.limits.perGroup.perSecond == 0.5)
        #expect(bot.limits.total == Rate(count: 100, per: ConfigDuration(seconds: 3600)))
        #expect(bot.maxRepliesPerMinute == 5)
        #expect(bot.initialState == ["count": 3, "names": ["a", "b"]])
        #expect(bot.timezone == "Asia/Tokyo")
        #expect(bot.rules.map(\.mode) == [.shadow])
        #expect(!bot.account.description.contains("secret"))
    }

    @Test func theVersionIsAShortHashOfTheFileBytes() throws {
        let text = "bot: v\naccount: { username: v, password: secret-password }\n"
        let first = try Bots.load(text), again = try Bots.load(text), changed = try Bots.load(text + "# note\n")
        #expect(first.version.count == 12)
        #expect(first.version.allSatisfy { $0.isHexDigit })
        #expect(first.version == again.version)
        #expect(first.version != changed.version)
    }

    @Test func theAvatarPathIsResolvedNextToTheBotFile() throws {
        let folder = URL(fileURLWithPath: Bots.directory).appendingPathComponent("avatar-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("assets"), withIntermediateDirectories: true)
        try Data([0x89, 0x50]).write(to: folder.appendingPathComponent("assets/me.png"))
        let file = folder.appendingPathComponent("me.yaml")
        try "bot: me\naccount: { username: me, password: secret-password }\nprofile: { avatar: assets/me.png }\n"
            .write(to: file, atomically: true, encoding: .utf8)
        let bot = try BotLoader.load(file: file.path, environment: [:])
        #expect(bot.profile?.avatarPath == folder.appendingPathComponent("assets/me.png").path)
    }

    @Test func aDirectoryLoadsEveryBotAndReportsTheBadOnes() throws {
        let folder = URL(fileURLWithPath: Bots.directory).appendingPathComponent("dir-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        func write(_ name: String, _ text: String) throws {
            try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        try write("a.yaml", "bot: a\naccount: { username: a, password: secret-password }\n")
        try write("b.yml", "bot: b\naccount: { username: b, password: secret-password }\n")
        try write("c.yaml", "bot: c\naccount: { username: c, pasword: secret-password }\n")
        try write("d.yaml", "bot: a\naccount: { username: d, password: secret-password }\n")
        try write("notes.txt", "not a bot")
        let catalog = BotCatalog.read(folder: folder.path, environment: [:])
        #expect(catalog.bots.map(\.name) == ["a", "b"])
        let path = { (name: String) in folder.appendingPathComponent(name).path }
        #expect(catalog.problems == [
            "\(path("c.yaml")):2:25: unknown key 'pasword' (did you mean 'password'?)",
            "\(path("d.yaml")): bot 'a' is also defined in \(path("a.yaml"))",
        ])
        #expect(catalog.files.map(\.name) == ["a", "b", "c", "a"])
        #expect(catalog.files.map(\.label) == ["a", "b", "c", "a"])
    }

    @Test func aFolderWithAFailingExampleRefusesThatBotOnly() async throws {
        let folder = URL(fileURLWithPath: Bots.directory).appendingPathComponent("dir-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "bot: a\naccount: { username: a, password: secret-password }\n"
            .write(to: folder.appendingPathComponent("a.yaml"), atomically: true, encoding: .utf8)
        try """
            bot: b
            account: { username: b, password: secret-password }
            rules:
              - { name: r, do: [ { reply: hi } ], examples: [ { from: x, text: y, expect: { reply: ho } } ] }
            """.write(to: folder.appendingPathComponent("b.yaml"), atomically: true, encoding: .utf8)
        let catalog = await BotCatalog.read(folder: folder.path, environment: [:]).runningExamples()
        #expect(catalog.bots.map(\.name) == ["a"])
        #expect(catalog.files.last?.name == "b")
        #expect(catalog.problems == [
            "\(folder.appendingPathComponent("b.yaml").path):4:51: rule 'r' example 1: failed: expected reply \"ho\", "
                + "got \"hi\" (first difference at character 2)",
        ])
    }

    @Test func ratesParseCountsPerUnitOrDuration() {
        #expect(Rate("1/s") == Rate(count: 1, per: ConfigDuration(seconds: 1)))
        #expect(Rate("20/min")?.perSecond == 20.0 / 60)
        #expect(Rate("100/h")?.description == "100/h")
        #expect(Rate("5/10s")?.description == "5/10s")
        #expect(Rate("3/day") == Rate(count: 3, per: ConfigDuration(seconds: 86400)))
        #expect(Rate("0/s") == nil)
        #expect(Rate("x/s") == nil)
        #expect(Rate("5") == nil)
        #expect(Rate("5/0s") == nil)
    }

    @Test func conversationPatternsParseTheWrittenForms() {
        #expect(ConversationPattern("direct") == .direct)
        #expect(ConversationPattern("user:Alice") == .user("alice"))
        #expect(ConversationPattern("direct:bob") == .user("bob"))
        #expect(ConversationPattern("group:*") == .anyGroup)
        #expect(ConversationPattern("room:lobby") == .room("lobby"))
        #expect(ConversationPattern("42") == .id(ConversationID(rawValue: 42)))
        #expect(ConversationPattern("channel:x") == nil)
        #expect(ConversationPattern("group:") == nil)
    }

    @Test func namedPatternsMatchNamesWhateverTheirCase() throws {
        func group(_ name: String) -> ConversationRef {
            ConversationRef(id: ConversationID(rawValue: 7), kind: .group, address: .group(name))
        }
        let ops = try #require(ConversationPattern("group:Ops-Team"))
        #expect(ops.matches(group("ops-team")))
        #expect(ops.matches(group("OPS-TEAM")))
        #expect(!ops.matches(group("ops-tea")))
        #expect(!ops.matches(group("ops-teams")))
        #expect(!ops.matches(group("ops_team")))
        // Not ASCII: compared as the server lowercases it.
        let cafe = try #require(ConversationPattern("group:Café-Ärger"))
        #expect(cafe.matches(group("CAFÉ-ÄRGER")))
        #expect(!cafe.matches(group("CAFE-ARGER")))
        // A Matrix room id keeps its case in the address; the pattern matches any case.
        let room = try #require(ConversationPattern("!AbC:example.org"))
        #expect(room.matches(group("!AbC:example.org")))
        #expect(room.matches(group("!abc:example.org")))
        #expect(!ConversationPattern.room("ops-team").matches(group("ops-team")))
    }
}
