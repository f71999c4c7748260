import Foundation
import IMBots
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
            "bot.yaml:5:9: 'listen' names room:lounge, which a Matrix bot does not have: its rooms are named as groups (group:lounge, with the room under platform.matrix.rooms)",
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
