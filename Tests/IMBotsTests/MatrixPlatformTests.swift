import Foundation
import IMBots
import MatrixClient
import Testing

/// `platform:` in bot files: Switchboard by default, Matrix with its homeserver, user,
/// where the credential is read, and the rooms the file's groups are; `check` says where
/// a rule asks Matrix for what it cannot do.
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

    @Test func checkSaysWhereARuleAsksMatrixForWhatItCannotDo() {
        let errors = Bots.errors(header + """
            platform:
              matrix: { homeserver: "https://m.example.org", user: "@b:m.example.org", token_env: B_TOKEN }
            rules:
              - name: thanks
                when: { command: thanks }
                do:
                  - notice: "you're welcome"
                  - update_profile: { nickname: Thanked }
              - name: hi
                when: { command: hi }
                do: [ { reply: hello } ]
            """)
        #expect(errors == [
            "bot.yaml:9:9: rule 'thanks': 'notice' cannot run on matrix: Matrix has no message only its addressee sees: use reply",
            "bot.yaml:10:9: rule 'thanks': 'update_profile' cannot run on matrix: the bot's Matrix profile is set on the homeserver, not by rules",
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

    @Test func theShippedAlertBridgeMovesToMatrixAndTheModeratorSaysWhatMatrixLacks() throws {
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

        let moderator = try String(contentsOf: root.appendingPathComponent("bots/moderator.yaml"), encoding: .utf8)
        do throws(BotConfigErrors) {
            _ = try BotLoader.load(text: moderator + block(##"lobby: "#lobby:example.org", mods: "#mods:example.org""##),
                                   file: "bots/moderator.yaml", directory: root.path + "/bots", environment: [:])
            Issue.record("the moderator checked on Matrix")
        } catch {
            let unsupported = Set(error.errors.compactMap { problem -> String? in
                guard let range = problem.message.range(of: "': '") else { return problem.message }
                return String(problem.message[range.upperBound...].prefix { $0 != "'" })
            })
            #expect(unsupported.isSubset(of: ["verify", "join_policy", "slow_mode", "approve", "deny", "notice"]),
                    "\(error.errors.map(\.description))")
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
