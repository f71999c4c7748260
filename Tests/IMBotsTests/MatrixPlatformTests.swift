import Foundation
import IMBots
import IMProtocol
import MatrixClient
import Testing

/// `platform:` in bot files: Switchboard by default, Matrix with its homeserver, user,
/// where the credential is read, and the rooms the file's groups are; `check` says where
/// a file asks Matrix for what it cannot be given.
@Suite struct MatrixPlatformTests {
    let header = """
        bot: b
        account: { username: b, password: secret-password }

        """

    @Test func aBotWithoutAPlatformIsASwitchboardBot() throws {
        let bot = try Bots.load(header + "rules: []\n")
        #expect(bot.platform == .switchboard)
        #expect(try Bots.load(header + "platform: switchboard\nrules: []\n").platform == .switchboard)
    }

    @Test func aMatrixBlockNamesTheHomeserverTheUserTheCredentialAndTheRooms() throws {
        let bot = try Bots.load(header + """
            platform:
              matrix:
                homeserver: https://matrix.example.org/
                user: "@helpdesk:example.org"
                password_env: HELPDESK_MATRIX_PASSWORD
                device: HELPDESK
                invites: accept
                rooms: { support: "#support:example.org", oncall: "!abc123:example.org" }
            join: ["group:support"]
            rules: []
            """)
        guard case .matrix(let account) = bot.platform else {
            Issue.record("not a Matrix bot: \(bot.platform)")
            return
        }
        #expect(account.homeserver == "https://matrix.example.org")
        #expect(account.user.rawValue == "@helpdesk:example.org")
        #expect(account.credential == .passwordVariable("HELPDESK_MATRIX_PASSWORD"))
        #expect(account.device == "HELPDESK")
        #expect(account.invites == .accept)
        #expect(account.rooms == ["support": .alias("#support:example.org"), "oncall": .id("!abc123:example.org")])
    }

    @Test func aMatrixBotFileNeedsNoAccountSection() throws {
        let bot = try Bots.load("""
            bot: b
            platform:
              matrix:
                homeserver: https://matrix.example.org
                user: "@helpdesk:example.org"
                token_env: HELPDESK_MATRIX_TOKEN
                rooms: { support: "#support:example.org" }
            listen: ["group:support"]
            rules:
              - name: hello
                when: { text: { contains: hi } }
                do: [ { reply: hello } ]
            """)
        #expect(bot.account.username == "@helpdesk:example.org")
        // A Switchboard bot still needs one.
        #expect(Bots.errors("bot: b\nrules: []\n").contains { $0.contains("missing required key 'account'") })
    }

    @Test func credentialsInTheFileAreRefusedWithWhereTheyGoInstead() {
        let errors = Bots.errors(header + """
            platform:
              matrix:
                homeserver: https://matrix.example.org
                user: "@helpdesk:example.org"
                password: hunter2
            rules: []
            """)
        #expect(errors.contains { $0.hasPrefix("bot.yaml:7:15: credentials never go in the bot file") })
        #expect(errors.contains { $0.contains("give exactly one of password_env") })
        #expect(!errors.joined().contains("hunter2"))
    }

    @Test func badAddressesAndURLsPointAtTheirText() {
        let errors = Bots.errors(header + """
            platform:
              matrix:
                homeserver: matrix.example.org
                user: helpdesk
                token_file: helpdesk.token
                rooms: { support: "group:support" }
            rules: []
            """)
        #expect(errors == [
            "bot.yaml:5:17: homeserver 'matrix.example.org' must be an http:// or https:// URL, e.g. https://matrix.example.org",
            "bot.yaml:6:11: user 'helpdesk' is not a Matrix user id: write it @name:server (quoted in YAML: '@helpdesk:example.org')",
            "bot.yaml:8:23: 'group:support' is not a Matrix room: write '!id:server' or '#alias:server' (quoted in YAML)",
        ])
    }

    @Test func noticesAndProfileChangesCheckOnMatrixAndWhatItCannotDoIsAnErrorAtItsPlace() {
        let errors = Bots.errors(header + """
            platform:
              matrix: { homeserver: "https://m.example.org", user: "@b:m.example.org", token_env: B_TOKEN, rooms: { lobby: "#lobby:m.example.org" } }
            moderation:
              log: "group:mods"
              moderators: [alice]
            rules:
              - name: thanks
                when: { command: thanks }
                do:
                  - notice: "you're welcome"
                  - update_profile: { nickname: Thanked }
                  - slow_mode: { interval: 30s, group: lobby }
                  - join_policy: { policy: approval, group: lobby }
            """)
        #expect(errors == [
            "bot.yaml:6:8: moderation.log names group:mods, which has no Matrix room: make an invite-only room for the "
                + "cases and add 'mods: \"#mods:your.server\"' under platform.matrix.rooms (on Matrix the bot does not create it)",
            "bot.yaml:7:15: moderation.moderators are Switchboard accounts the bot makes admins: on Matrix give the "
                + "moderators power level 50 or more in the rooms instead, and leave this key out",
        ])
    }

    @Test func aGroupTheFileJoinsNeedsAMatrixRoom() {
        let errors = Bots.errors(header + """
            platform:
              matrix: { homeserver: "https://m.example.org", user: "@b:m.example.org", token_env: B_TOKEN }
            join: ["group:support"]
            rules: []
            """)
        #expect(errors.count == 1)
        #expect(errors.first?.hasPrefix("bot.yaml:5:7: 'join' names group:support, which has no Matrix room") == true)
    }

    @Test func aGroupTheBotListensToNeedsAMatrixRoomAndRoomsAreNamedAsGroups() {
        let errors = Bots.errors(header + """
            platform:
              matrix: { homeserver: "https://m.example.org", user: "@b:m.example.org", token_env: B_TOKEN, rooms: { help: "#help:m.example.org" } }
            listen: [direct, "group:help", "group:support", "room:lounge"]
            rules: []
            """)
        #expect(errors == [
            "bot.yaml:5:9: 'listen' names group:support, which has no Matrix room: add 'support: \"#support:your.server\"' (or a '!id:server') under platform.matrix.rooms",
            "bot.yaml:5:9: 'listen' names room:lounge, which a Matrix bot does not have: its rooms are named as groups "
                + "(group:lounge, with the room under platform.matrix.rooms) or written as Matrix writes them "
                + "('#alias:server'), its direct chats as '@user:server'",
        ])
    }

    /// A Matrix bot's file writes rooms and users as Matrix writes them wherever it names a
    /// conversation, with no `rooms:` entry: the bot joins those rooms at start, its rules
    /// match their events, and its examples run in them.
    @Test func roomsAndUsersWrittenAsMatrixWritesThemNameConversationsAnywhereInTheFile() async throws {
        let bot = try Bots.load(header + """
            platform:
              matrix: { homeserver: "https://m.example.org", user: "@b:m.example.org", token_env: B_TOKEN }
            listen: ["#Ops:m.example.org", "@alice:m.example.org"]
            join: ["!RoomOnCall:m.example.org"]
            moderation:
              log: "#mods:m.example.org"
            rules:
              - name: page
                when: { command: page, in: "#Ops:m.example.org" }
                do: [ { send: { to: "!RoomOnCall:m.example.org", text: "paged by {{sender.nickname}}" } } ]
                examples:
                  - { from: "@alice:m.example.org", in: "#Ops:m.example.org", text: /page, expect: { send: { to: "!RoomOnCall:m.example.org", text: "paged by @alice:m.example.org" } } }
                  - { from: "@alice:m.example.org", in: "@alice:m.example.org", text: /page, expect: nothing }
              - name: hello
                when: { text: { contains: hello }, in: "@alice:m.example.org" }
                do: [ { reply: hi } ]
                examples:
                  - { from: "@alice:m.example.org", in: "@alice:m.example.org", text: hello, expect: { reply: hi } }
            """)
        guard case .matrix(let account) = bot.platform else {
            Issue.record("not a Matrix bot: \(bot.platform)")
            return
        }
        // Joined at start, as written (room ids are case-sensitive); tests' rooms are not.
        #expect(account.rooms == [
            "#ops:m.example.org": .alias("#Ops:m.example.org"),
            "!roomoncall:m.example.org": .id("!RoomOnCall:m.example.org"),
            "#mods:m.example.org": .alias("#mods:m.example.org"),
        ])
        #expect(bot.moderation.log == .group("#mods:m.example.org"))
        let results = await ExampleRunner.run(bot: bot)
        #expect(results.count == 3)
        for result in results where !result.passed { Issue.record("\(result)") }

        // The runner names a room the file writes by its lowercased address, and a direct
        // chat by its user: the listen patterns match both, and nothing else.
        let ops = ConversationRef(id: ConversationID(rawValue: 3), kind: .group, address: .group("#ops:m.example.org"))
        let alice = ConversationRef(id: ConversationID(rawValue: 4), kind: .direct, address: .user("@alice:m.example.org"))
        let other = ConversationRef(id: ConversationID(rawValue: 5), kind: .group, address: .group("#other:m.example.org"))
        #expect(bot.listen.map { $0.matches(ops) } == [true, false])
        #expect(bot.listen.map { $0.matches(alice) } == [false, true])
        #expect(!bot.listen.contains { $0.matches(other) })
    }

    @Test func aRenderedAddressMayBeAMatrixRoomOrUserKeptAsWritten() {
        #expect(ConversationAddress(written: " !AbC:m.example.org ") == .group("!AbC:m.example.org"))
        #expect(ConversationAddress(written: "!AbC") == .group("!AbC"))  // a room version 12 id
        #expect(ConversationAddress(written: "#Ops:m.example.org") == .group("#Ops:m.example.org"))
        #expect(ConversationAddress(written: "@Alice:m.example.org") == .user("@Alice:m.example.org"))
        #expect(ConversationAddress(written: "GROUP:Ops") == .group("ops"))
        #expect(ConversationAddress(written: "#ops") == nil)  // an alias needs its server
        #expect(ConversationAddress(written: "@alice") == nil)
        #expect(ConversationAddress(written: "!a b:m.example.org") == nil)
    }

    @Test func matrixAddressesOutsideAMatrixBotsFileAreErrorsAtTheirPlace() {
        let errors = Bots.errors(header + """
            listen: ["#ops:example.org"]
            rules:
              - name: page
                when: { command: page }
                do: [ { send: { to: "@alice:example.org", text: paged } } ]
            """)
        #expect(errors == [
            "bot.yaml:3:10: '#ops:example.org' is a Matrix room: a bot file names Matrix rooms and users only with "
                + "platform: {matrix: …} (docs/matrix.md)",
            "bot.yaml:7:25: '@alice:example.org' is a Matrix user: a bot file names Matrix rooms and users only with "
                + "platform: {matrix: …} (docs/matrix.md)",
        ])
    }

    /// YAML reads a leading `#` as a comment, `!` as a tag and `@` as reserved: an unquoted
    /// Matrix room or user is an error that says to quote it, never a value silently lost.
    @Test func anUnquotedMatrixRoomOrUserIsAnErrorThatSaysToQuoteIt() {
        let platform = header + """
            platform:
              matrix: { homeserver: "https://m.example.org", user: "@b:m.example.org", token_env: B_TOKEN }
            rules:
              - name: page
                do: [ { send: { to: TARGET, text: paged } } ]

            """
        func errors(_ target: String) -> [String] {
            Bots.errors(platform.replacingOccurrences(of: "TARGET", with: target))
        }
        #expect(errors("#ops:m.example.org") == [
            "bot.yaml:8:1: did not find expected node content (while parsing a flow node at 8:1); line 7 writes "
                + "#ops:m.example.org unquoted, and YAML reads a leading # as a comment: quote Matrix rooms and users "
                + "('#ops:m.example.org')",
        ])
        #expect(errors("!Ops:m.example.org") == [
            "bot.yaml:7:25: '!Ops:m.example.org' is a YAML tag, and bot files use none: quote Matrix room ids "
                + "('!Ops:m.example.org'), which YAML otherwise reads as a tag",
        ])
        #expect(errors("@alice:m.example.org") == [
            "bot.yaml:7:25: found character that cannot start any token (while scanning for the next token at 7:25); "
                + "line 7 writes @alice:m.example.org unquoted, and YAML reads a leading @ as reserved: quote Matrix "
                + "rooms and users ('@alice:m.example.org')",
        ])
        #expect(errors("\"!Ops:m.example.org\"") == [])
    }

    @Test func aRoomHasOneNameInAFileAndARoomTheBotDoesNotCreateHasNoSettings() {
        let errors = Bots.errors(header + """
            platform:
              matrix: { homeserver: "https://m.example.org", user: "@b:m.example.org", token_env: B_TOKEN, rooms: { help: "#help:m.example.org" } }
            listen: ["#HELP:m.example.org"]
            join: [{ group: "#lobby:m.example.org", policy: approval }]
            rules: []
            """)
        #expect(errors == [
            "bot.yaml:5:10: '#HELP:m.example.org' is the room of group:help (platform.matrix.rooms): write group:help "
                + "here, so that the file has one name for it",
            "bot.yaml:6:17: '#lobby:m.example.org' is a Matrix room: the bot does not create it, so it has no settings "
                + "to give; write it as a plain entry (join: ['#lobby:m.example.org'])",
        ])
    }

    @Test func theShippedHelpDeskMovesToMatrixWithOnlyAPlatformBlock() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("bots/helpdesk.yaml"), encoding: .utf8)
        let block = """

            platform:
              matrix:
                homeserver: https://matrix.example.org
                user: "@helpdesk:example.org"
                password_env: HELPDESK_MATRIX_PASSWORD
                rooms: { support: "#support:example.org", oncall: "#oncall:example.org" }

            """
        let bot = try BotLoader.load(text: text + block, file: "bots/helpdesk.yaml", directory: root.path + "/bots",
                                     environment: [:])
        #expect(bot.platform.name == "matrix")
    }

    @Test func theShippedAlertBridgeAndModeratorMoveToMatrixWithOnlyAPlatformBlock() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        func block(_ rooms: String) -> String {
            """

            platform:
              matrix:
                homeserver: https://matrix.example.org
                user: "@bot:example.org"
                token_file: bot.token
                rooms: { \(rooms) }

            """
        }
        let alerts = try String(contentsOf: root.appendingPathComponent("bots/alerts.yaml"), encoding: .utf8)
        let bot = try BotLoader.load(text: alerts + block(##"oncall: "#oncall:example.org", alerts: "#alerts:example.org""##),
                                     file: "bots/alerts.yaml", directory: root.path + "/bots", environment: [:])
        #expect(bot.platform.name == "matrix")

        // Its verify, join_policy, slow_mode, approve/deny, notices, mod-log and direct
        // chats all have their Matrix equivalents; its account: is not used there.
        let moderator = try String(contentsOf: root.appendingPathComponent("bots/moderator.yaml"), encoding: .utf8)
        let moderatorBot = try BotLoader.load(
            text: moderator + block(##"lobby: "#lobby:example.org", mods: "#mods:example.org""##),
            file: "bots/moderator.yaml", directory: root.path + "/bots", environment: [:])
        #expect(moderatorBot.platform.name == "matrix")
        #expect(moderatorBot.moderation.log == .group("mods"))

        // Without the mod-log's room, check says where, and what to add.
        do throws(BotConfigErrors) {
            _ = try BotLoader.load(text: moderator + block(##"lobby: "#lobby:example.org""##),
                                   file: "bots/moderator.yaml", directory: root.path + "/bots", environment: [:])
            Issue.record("the moderator checked on Matrix without a room for its mod-log")
        } catch {
            let lines = moderator.split(separator: "\n", omittingEmptySubsequences: false)
            let logLine = try #require(lines.firstIndex { $0.hasPrefix("  log: ") }) + 1
            #expect(error.errors.map(\.description).contains(
                "bots/moderator.yaml:\(logLine):8: moderation.log names group:mods, which has no Matrix room: make an "
                    + "invite-only room for the cases and add 'mods: \"#mods:your.server\"' under platform.matrix.rooms "
                    + "(on Matrix the bot does not create it)"), "\(error.errors.map(\.description))")
        }
    }

    @Test func aTokenFileMustBeReadableByItsOwnerOnly() throws {
        let path = Bots.directory + "/matrix-\(UUID().uuidString).token"
        try "syt_token_value\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        chmod(path, 0o644)
        #expect(throws: MatrixSecretError.self) { try MatrixSecret.read(.tokenFile(path)) }
        chmod(path, 0o600)
        #expect(try MatrixSecret.read(.tokenFile(path)) == .accessToken("syt_token_value"))
        #expect(try MatrixSecret.read(.passwordVariable("P"), environment: ["P": "pw"]) == .password("pw"))
        #expect(throws: MatrixSecretError.self) { try MatrixSecret.read(.tokenVariable("T"), environment: [:]) }
    }
}
