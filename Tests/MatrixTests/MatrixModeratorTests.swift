import Foundation
import IMBots
import IMClient
import IMProtocol
import Logging
import MatrixClient
import Testing
import TestSupport

/// The shipped `bots/moderator.yaml`, with only a `platform:` block added, run against
/// Synapse: newcomers verified in a direct chat, a raid answered with knocks and slow
/// mode, reports as notices and cases, edits judged as messages.
@Suite("The shipped moderator on Matrix")
struct MatrixModeratorTests {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Everything the test watches: the rooms, the people and their watchers.
    private struct Scene {
        let server: SynapseTestServer
        let owner: MatrixClient
        let ownerWatch: SyncWatcher
        let botID: String
        let lobby: String
        let mods: String
    }

    @Test(.timeLimit(.minutes(5)))
    func theShippedModeratorKeepsALobbyOnMatrix() async throws {
        let server = try await SynapseTestServer.shared()
        let owner = try await server.newClient("owner")
        let botName = server.newUsername("moderator")
        let password = "bot-password-\(botName)"
        _ = try await server.register(botName, password: password)
        let botID = server.userID(botName)
        var levels = PowerLevels()
        // The owner creates the rooms: a creator of a version 12 room outranks every level.
        levels.users = [botID.rawValue: 100]
        let lobbyAlias = server.newUsername("lobby")
        let modsAlias = server.newUsername("mods")
        let lobby = try await owner.createRoom(NewRoom(preset: "public_chat", aliasLocalpart: lobbyAlias,
                                                        powerLevels: levels))
        // The mod-log is invite-only: the bot is invited, and joins it at start.
        let mods = try await owner.createRoom(NewRoom(preset: "private_chat", aliasLocalpart: modsAlias,
                                                       invite: [botID], powerLevels: levels))

        let shipped = try String(contentsOf: Self.root.appendingPathComponent("bots/moderator.yaml"), encoding: .utf8)
        let folder = try BotFolder.make("moderator", shipped + """

            platform:
              matrix:
                homeserver: \(server.baseURL)
                user: "\(botID.rawValue)"
                password_env: MODERATOR_MATRIX_PASSWORD
                rooms: { lobby: "#\(lobbyAlias):\(server.serverName)", mods: "#\(modsAlias):\(server.serverName)" }

            """)
        defer { BotFolder.remove(folder) }
        // Real time, but the verification's ten minutes are jumped over.
        let time = JumpingTime()
        let configuration = RunnerConfiguration(
            serverURL: "http://127.0.0.1:9", botsDirectory: folder + "/bots", stateDirectory: folder + "/state",
            listen: ListenAddress(host: "127.0.0.1", port: 0),
            environment: ["MODERATOR_MATRIX_PASSWORD": password], watchInterval: 0, pollTimeout: 2, time: time)
        let runner = try BotRunner(configuration: configuration, logger: Logger(label: "matrix-moderator-test"))
        let task = Task { [runner] in try await runner.run() }
        defer { task.cancel() }

        // Ready once its feed holds its beginning (the runner's connected gauge).
        try await eventually("the moderator's feed started", hangGuard: .seconds(60)) {
            guard let port = runner.port else { return false }
            let answer = try? await SynapseTestServer.transport.send(
                TransportRequest(url: "http://127.0.0.1:\(port)/metrics"))
            let text = answer.map { String(decoding: $0.body, as: UTF8.self) } ?? ""
            return text.contains("switchboard_bot_connected{bot=\"moderator\"} 1")
        }
        let scene = Scene(server: server, owner: owner, ownerWatch: SyncWatcher(owner), botID: botID.rawValue,
                          lobby: lobby, mods: mods)
        let bot = botID.rawValue
        _ = try await scene.ownerWatch.until("the bot in both rooms") { seen in
            [lobby, mods].allSatisfy { room in
                seen.events(in: room, type: "m.room.member").contains { $0.stateKey == bot && $0.membership == "join" }
            } ? true : nil
        }

        // A newcomer joins restricted, answers in the direct chat, and may post.
        let nina = try await server.newClient("nina")
        let ninaID = try nina.currentUser().rawValue
        let ninaWatch = SyncWatcher(nina)
        try await nina.join(.id(lobby))
        let ninaChat = try await verification(of: nina, ninaWatch, scene)
        try await nina.sendText("green", to: ninaChat, transactionID: "wrong-1")
        _ = try await ninaWatch.until("the hint") { seen in
            seen.messages(in: ninaChat).first { $0.sender == bot && $0.body?.hasPrefix("That is not the answer") == true }
        }
        try await nina.sendText("Blue!", to: ninaChat, transactionID: "answer-1")
        _ = try await ninaWatch.until("the thanks") { seen in
            seen.messages(in: ninaChat).first { $0.sender == bot && $0.body?.hasPrefix("Thank you! You can post") == true }
        }
        _ = try await scene.ownerWatch.until("nina's restriction lifted") { seen in
            seen.events(in: lobby, type: "m.room.power_levels").last.flatMap { event in
                event.content["users"]?[ninaID] == nil ? event : nil
            }
        }
        let hello = try await nina.sendText("hello everyone", to: lobby, transactionID: "hello-1")

        // Her report: a case in the mod-log, and thanks only she sees, in her direct chat.
        try await nina.sendText("/report someone keeps shouting", to: lobby, transactionID: "report-1")
        let reported = try await scene.ownerWatch.until("the report's case") { seen in
            seen.messages(in: mods).first { $0.sender == bot && $0.body?.contains("report") == true
                && $0.body?.contains("someone keeps shouting") == true }
        }
        #expect(reported.body?.contains(ninaID) == true)
        let thanks = try await ninaWatch.until("the notice") { seen in
            seen.messages(in: ninaChat).first { $0.sender == bot && $0.body?.hasPrefix("Thanks ") == true }
        }
        #expect(thanks.messageType == "m.notice")
        #expect(thanks.body?.hasSuffix("the moderators have your report.") == true)

        // Her greeting edited into a banned word is redacted (with the edit), and she is warned.
        let edit = try await nina.edit(hello, in: lobby, to: "hello everyone, free money for all", transactionID: "edit-1")
        _ = try await scene.ownerWatch.until("the edited message redacted") { seen in
            let redacted = Set(seen.events(in: lobby, type: "m.room.redaction").compactMap(\.redacts))
            return redacted.isSuperset(of: [hello, edit]) ? true : nil
        }
        _ = try await scene.ownerWatch.until("the warning") { seen in
            seen.messages(in: lobby).first { $0.sender == bot && $0.body?.hasPrefix("@\(ninaID), that is not welcome") == true }
        }

        // Another newcomer gets the question and never answers (see the end).
        let fred = try await server.newClient("fred")
        let fredID = try fred.currentUser().rawValue
        let fredWatch = SyncWatcher(fred)
        try await fred.join(.id(lobby))
        _ = try await verification(of: fred, fredWatch, scene)

        // A raid: more than ten joins within a minute switch the lobby to knocks and slow
        // mode; the joins after the switch are refused.
        var raiders: [MatrixClient] = []
        for _ in 0..<11 { raiders.append(try await server.newClient("raider")) }
        for raider in raiders {
            do throws(IMClientError) {
                try await raider.join(.id(lobby))
            } catch {
                // Refused once the lobby takes knocks.
                guard error.apiCode == .forbidden else { throw error }
            }
        }
        _ = try await scene.ownerWatch.until("the lobby taking knocks", hangGuard: .seconds(120)) { seen in
            seen.events(in: lobby, type: "m.room.join_rules").first {
                $0.sender == bot && $0.content["join_rule"]?.string == "knock"
            }
        }
        _ = try await scene.ownerWatch.until("the raid's case", hangGuard: .seconds(120)) { seen in
            seen.messages(in: mods).first { $0.sender == bot && $0.body?.contains("raid in group:lobby") == true }
        }

        // Slow mode: nina's second message within the interval is redacted, and she is told.
        try await nina.sendText("one", to: lobby, transactionID: "slow-1")
        let second = try await nina.sendText("two", to: lobby, transactionID: "slow-2")
        _ = try await scene.ownerWatch.until("the second message redacted") { seen in
            seen.events(in: lobby, type: "m.room.redaction").first { $0.redacts == second }
        }
        let slow = try await ninaWatch.until("the slow mode notice") { seen in
            seen.messages(in: ninaChat).first { $0.sender == bot && $0.body?.contains("slow mode") == true }
        }
        #expect(slow.messageType == "m.notice")

        // Knocks are join requests; /approve-all in the mod-log invites the knockers.
        let knockers = [try await server.newClient("knocker"), try await server.newClient("knocker")]
        let knockWatches = knockers.map(SyncWatcher.init)
        for knocker in knockers { try await knocker.knock(.id(lobby)) }
        _ = try await scene.ownerWatch.until("the knocks") { seen in
            seen.events(in: lobby, type: "m.room.member").filter { $0.membership == "knock" }.count == knockers.count
                ? true : nil
        }
        try await owner.sendText("/approve-all", to: mods, transactionID: "approve-all-1")
        for watch in knockWatches {
            _ = try await watch.until("the invitation into the lobby") { seen in seen.invites[lobby] }
        }
        _ = try await scene.ownerWatch.until("the approval's case") { seen in
            seen.messages(in: mods).first { $0.sender == bot && $0.body?.contains("approve") == true }
        }

        // Let in by a moderator, a knocker comes in by invitation: welcomed, never restricted.
        let admitted = knockers[0]
        let admittedID = try admitted.currentUser()
        try await admitted.join(.id(lobby))
        let seenWelcome = try await scene.ownerWatch.until("the welcome of the admitted knocker") { seen in
            seen.messages(in: lobby).contains { $0.sender == bot && $0.body?.hasPrefix("Welcome \(admittedID.localpart)!") == true }
                ? seen : nil
        }
        #expect(!seenWelcome.events(in: lobby, type: "m.room.power_levels").contains { event in
            event.content["users"]?[admittedID.rawValue] != nil
        })

        // Ten minutes on (the runner's clock moved forward), fred, who never answered, is
        // removed, with a case. Last: from here the runner's clock is ahead of the
        // homeserver's, so the raid's quiet period (counted from the events' time) is over.
        time.jump(by: .seconds(11 * 60))
        _ = try await scene.ownerWatch.until("fred kicked") { seen in
            seen.events(in: lobby, type: "m.room.member").first {
                $0.stateKey == fredID && $0.membership == "leave" && $0.sender == bot
            }
        }
        _ = try await scene.ownerWatch.until("the kick's case") { seen in
            seen.messages(in: mods).first { $0.sender == bot && $0.body?.contains("kick \(fredID) in group:lobby") == true }
        }
        task.cancel()
        _ = try? await task.value
    }

    /// Waits for the newcomer's restriction and their question in a direct chat the bot
    /// invites them to; joins it and returns its id.
    private func verification(of person: MatrixClient, _ watch: SyncWatcher, _ scene: Scene) async throws -> String {
        let personID = try person.currentUser().rawValue
        _ = try await scene.ownerWatch.until("\(personID) restricted") { seen in
            seen.events(in: scene.lobby, type: "m.room.power_levels").last.flatMap { event in
                (event.content["users"]?[personID]?.integer ?? 0) < 0 ? event : nil
            }
        }
        let chat = try await watch.until("the bot's direct chat") { seen in
            seen.invites.first { _, invite in invite.inviter(of: MatrixUserID(personID)!) == scene.botID }?.key
        }
        try await person.join(.id(chat))
        let question = try await watch.until("the question") { seen in
            seen.messages(in: chat).first { $0.sender == scene.botID && $0.body?.contains("clear sky") == true }
        }
        #expect(question.body?.contains("Answer here.") == true)
        return chat
    }
}
