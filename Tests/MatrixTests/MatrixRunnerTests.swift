import Foundation
import IMBots
import IMClient
import IMProtocol
import Logging
import MatrixClient
import Testing
import TestSupport

/// The runner with a bot file of `platform: {matrix: …}` against Synapse: the same rules,
/// journal and outbox as on Switchboard, the feed and the sends on the homeserver.
@Suite("Matrix bots in the runner")
struct MatrixRunnerTests {
    /// A help desk for the room `#<alias>`, logging in as `user` with the password in
    /// `HELPDESK_MATRIX_PASSWORD`.
    private static func helpDesk(homeserver: String, user: MatrixUserID, alias: String) -> String {
        """
        bot: helpdesk
        account: { username: helpdesk, password: not-used-on-matrix }
        platform:
          matrix:
            homeserver: \(homeserver)
            user: "\(user.rawValue)"
            password_env: HELPDESK_MATRIX_PASSWORD
            rooms: { support: "\(alias)" }
        listen: ["group:support"]
        on_start: { backlog: all }
        limits: { per_conversation: 100/s, per_group: 100/s, total: 100/s }
        rules:
          - name: hours
            when: { command: hours }
            do: [ { reply: "We answer 9 to 5, Monday to Friday." } ]
          - name: hello
            when: { text: { contains: hello, ignore_case: true } }
            do: [ { reply: "Hi {{sender.nickname}}! Try /hours." } ]
          - name: status
            when: { command: status, from: { role: admin } }
            do: [ { reply: "All systems go." } ]
        """
    }

    private struct Runner {
        let runner: BotRunner
        let task: Task<Void, any Error>

        func stop() async {
            task.cancel()
            _ = try? await task.value
        }
    }

    /// Starts a runner over `folder` (its bots in `folder/bots`, state in `folder/state`).
    private static func startRunner(_ folder: String, password: String) throws -> Runner {
        let configuration = RunnerConfiguration(
            serverURL: "http://127.0.0.1:9", botsDirectory: folder + "/bots", stateDirectory: folder + "/state",
            environment: ["HELPDESK_MATRIX_PASSWORD": password], watchInterval: 0, pollTimeout: 2)
        let runner = try BotRunner(configuration: configuration, logger: Logger(label: "matrix-runner-test"))
        return Runner(runner: runner, task: Task { try await runner.run() })
    }

    @Test func theHelpDeskAnswersAPersonInARoom() async throws {
        let server = try await SynapseTestServer.shared()
        let alice = try await server.newClient("alice")
        try await alice.setDisplayName("Alice Liddell")
        let botName = server.newUsername("helpdesk")
        _ = try await server.register(botName, password: "bot-password-\(botName)")
        let alias = server.newUsername("support")
        let roomID = try await alice.createRoom(NewRoom(preset: "public_chat", aliasLocalpart: alias))

        let folder = try BotFolder.make("helpdesk", Self.helpDesk(
            homeserver: server.baseURL, user: server.userID(botName), alias: "#\(alias):\(server.serverName)"))
        defer { BotFolder.remove(folder) }
        let runner = try Self.startRunner(folder, password: "bot-password-\(botName)")
        defer { Task { await runner.stop() } }

        let botID = server.userID(botName).rawValue
        let watcher = SyncWatcher(alice)
        // The bot joins the room its file names.
        _ = try await watcher.until("the bot joining") { seen in
            seen.events(in: roomID, type: "m.room.member").first { $0.stateKey == botID && $0.membership == "join" }
        }
        let question = try await alice.sendText("/hours", to: roomID, transactionID: "hours-1")
        let answer = try await watcher.until("the bot's answer") { seen in
            seen.messages(in: roomID).first { $0.sender == botID }
        }
        #expect(answer.body == "We answer 9 to 5, Monday to Friday.")
        _ = question
        try await alice.sendText("Hello there", to: roomID, transactionID: "hello-1")
        let greeting = try await watcher.until("the greeting") { seen in
            seen.messages(in: roomID).first { $0.sender == botID && $0.body?.hasPrefix("Hi ") == true }
        }
        #expect(greeting.body == "Hi Alice Liddell! Try /hours.")

        // `from: {role: admin}` reads the room's power levels: the creator (above every
        // level in a version 12 room) is answered, a member at level 0 is not.
        let bob = try await server.newClient("bob")
        try await bob.join(.id(roomID))
        try await bob.sendText("/status", to: roomID, transactionID: "bob-status")
        try await alice.sendText("/status", to: roomID, transactionID: "alice-status")
        try await alice.sendText("/hours again", to: roomID, transactionID: "hours-2")
        let seen = try await watcher.until("the answer after both /status") { seen in
            seen.messages(in: roomID).filter { $0.sender == botID && $0.body?.hasPrefix("We answer") == true }.count == 2
                ? seen : nil
        }
        #expect(seen.messages(in: roomID).filter { $0.sender == botID && $0.body == "All systems go." }.count == 1)
        await runner.stop()
    }

    /// Rooms written as Matrix writes them, with no `rooms:` block: the bot joins the room
    /// its `listen:` writes as an alias and the one its `join:` writes as an id (mixed
    /// case, as Synapse makes them), answers in the first and pages the second. A rendered
    /// `to:` reaches a room the bot is in, and never makes it join one it is not in.
    @Test func roomsWrittenAsMatrixWritesThemAreJoinedListenedToAndSentTo() async throws {
        let server = try await SynapseTestServer.shared()
        let alice = try await server.newClient("alice")
        let botName = server.newUsername("relay")
        _ = try await server.register(botName, password: "bot-password-\(botName)")
        let botID = server.userID(botName).rawValue
        let deskAlias = server.newUsername("desk")
        let desk = try await alice.createRoom(NewRoom(preset: "public_chat", aliasLocalpart: deskAlias))
        let oncall = try await alice.createRoom(NewRoom(preset: "public_chat"))
        let elsewhereAlias = server.newUsername("elsewhere")
        let elsewhere = try await alice.createRoom(NewRoom(preset: "public_chat", aliasLocalpart: elsewhereAlias))

        let folder = try BotFolder.make("relay", """
            bot: relay
            platform:
              matrix:
                homeserver: \(server.baseURL)
                user: "\(botID)"
                password_env: HELPDESK_MATRIX_PASSWORD
            listen: ["#\(deskAlias):\(server.serverName)"]
            join: ["\(oncall)"]
            on_start: { backlog: all }
            rules:
              - name: page
                when: { command: page }
                do: [ { send: { to: "\(oncall)", text: "paged by {{sender.username}}" } } ]
              - name: relay
                when: { command: relay }
                do: [ { send: { to: "{{args}}", text: "relayed to {{args}}" } } ]
            """)
        defer { BotFolder.remove(folder) }
        let runner = try Self.startRunner(folder, password: "bot-password-\(botName)")
        defer { Task { await runner.stop() } }

        let watcher = SyncWatcher(alice)
        _ = try await watcher.until("the bot joining both rooms") { seen in
            [desk, oncall].allSatisfy { room in
                seen.events(in: room, type: "m.room.member").contains { $0.stateKey == botID && $0.membership == "join" }
            } ? true : nil
        }
        try await alice.sendText("/page", to: desk, transactionID: "page-1")
        let page = try await watcher.until("the page") { seen in
            seen.messages(in: oncall).first { $0.sender == botID }
        }
        #expect(page.body == "paged by \(try #require(alice.session?.userID.rawValue))")

        // In order in the one room: the relay to a room the bot is not in fails (logged),
        // the one to a room it is in arrives.
        try await alice.sendText("/relay #\(elsewhereAlias):\(server.serverName)", to: desk, transactionID: "relay-1")
        try await alice.sendText("/relay \(oncall)", to: desk, transactionID: "relay-2")
        let seen = try await watcher.until("the relay") { seen in
            seen.messages(in: oncall).contains { $0.sender == botID && $0.body == "relayed to \(oncall)" } ? seen : nil
        }
        #expect(!seen.events(in: elsewhere, type: "m.room.member").contains { $0.stateKey == botID })
        #expect(!seen.messages(in: elsewhere).contains { $0.sender == botID })
        await runner.stop()
    }

    /// More messages while the bot was stopped than one `/sync` answer holds (50 per room):
    /// the answer's timeline is limited, and the feed pages the rest in from before it, so
    /// a restart replies to every message it missed, once, and to none it had answered.
    @Test(.timeLimit(.minutes(3)))
    func aRestartAfterMoreMessagesThanOneAnswerHoldsRepliesToEveryOneOnce() async throws {
        let server = try await SynapseTestServer.shared()
        let alice = try await server.newClient("alice")
        let botName = server.newUsername("pinger")
        _ = try await server.register(botName, password: "bot-password-\(botName)")
        let botID = server.userID(botName).rawValue
        let alias = server.newUsername("pings")
        let roomID = try await alice.createRoom(NewRoom(preset: "public_chat", aliasLocalpart: alias))
        let folder = try BotFolder.make("pinger", """
            bot: pinger
            platform:
              matrix:
                homeserver: \(server.baseURL)
                user: "\(botID)"
                password_env: HELPDESK_MATRIX_PASSWORD
            listen: ["#\(alias):\(server.serverName)"]
            on_start: { backlog: all }
            limits: { per_conversation: 1000/s, per_group: 1000/s, total: 1000/s, queue: 1000 }
            loop_guard: { max_replies_per_minute: 10000 }
            rules:
              - name: pong
                when: { command: ping }
                do: [ { reply: "pong {{args}}" } ]
            """)
        defer { BotFolder.remove(folder) }
        let watcher = SyncWatcher(alice)
        @Sendable func replies(_ seen: SyncWatcher.Seen) -> [String] {
            seen.messages(in: roomID).filter { $0.sender == botID }.compactMap(\.body)
        }

        let first = try Self.startRunner(folder, password: "bot-password-\(botName)")
        _ = try await watcher.until("the bot joining") { seen in
            seen.events(in: roomID, type: "m.room.member").first { $0.stateKey == botID && $0.membership == "join" }
        }
        for index in 0..<3 { try await alice.sendText("/ping before \(index)", to: roomID, transactionID: "before-\(index)") }
        _ = try await watcher.until("the first three replies") { seen in replies(seen).count == 3 ? true : nil }
        await first.stop()

        let missed = 120
        for index in 0..<missed { try await alice.sendText("/ping \(index)", to: roomID, transactionID: "missed-\(index)") }
        let second = try Self.startRunner(folder, password: "bot-password-\(botName)")
        defer { Task { await second.stop() } }
        try await alice.sendText("/ping end", to: roomID, transactionID: "end")
        _ = try await watcher.until("the last reply", hangGuard: .seconds(120)) { seen in
            replies(seen).contains("pong end") ? true : nil
        }
        // The room's history, not the watcher's answers: a burst of replies larger than
        // one of its answers holds would leave some out of those.
        let all = try await alice.latestEvents(in: roomID, limit: 1000, senders: [server.userID(botName)])
            .reversed().compactMap(\.body)
        let expected = (0..<3).map { "pong before \($0)" } + (0..<missed).map { "pong \($0)" } + ["pong end"]
        #expect(all.count == expected.count, "\(all.count) replies; missing \(expected.filter { !all.contains($0) })")
        #expect(Set(all) == Set(expected))
        // In the order of the messages: the missed ones were handed to the rules oldest first.
        #expect(all == expected)
        await second.stop()
    }

    @Test(.timeLimit(.minutes(3)))
    func aRunnerKilledMidStreamRepliesExactlyOnceToEveryMessageAfterRestart() async throws {
        let binary = try #require(switchboardExecutable, "build the switchboard executable first (swift build)")
        let server = try await SynapseTestServer.shared()
        let alice = try await server.newClient("alice")
        let botName = server.newUsername("pinger")
        let password = "bot-password-\(botName)"
        _ = try await server.register(botName, password: password)
        let alias = server.newUsername("pings")
        let roomID = try await alice.createRoom(NewRoom(preset: "public_chat", aliasLocalpart: alias))
        let botID = server.userID(botName).rawValue

        // Twenty replies a second, so the kill lands while replies are still queued.
        let folder = try BotFolder.make("pinger", """
            bot: pinger
            account: { username: pinger, password: not-used-on-matrix }
            platform:
              matrix:
                homeserver: \(server.baseURL)
                user: "\(botID)"
                password_env: PINGER_MATRIX_PASSWORD
                device: PINGER
                rooms: { pings: "#\(alias):\(server.serverName)" }
            on_start: { backlog: all }
            limits: { per_conversation: 20/s, per_group: 1000/s, total: 1000/s }
            loop_guard: { max_replies_per_minute: 10000 }
            rules:
              - name: pong
                when: { command: ping }
                do: [ { reply: "pong {{args}}" } ]
            """)
        defer { BotFolder.remove(folder) }
        let config = folder + "/config.yaml"
        try """
            log_level: warning
            runner:
              server: http://127.0.0.1:9
              listen: 127.0.0.1:0
              bots: \(folder)/bots
              state: \(folder)/state
            """.write(toFile: config, atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["PINGER_MATRIX_PASSWORD"] = password

        let total = 40
        let watcher = SyncWatcher(alice)
        let first = try SpawnedProcess(binary, ["run", "--config", config], environment: environment)
        do {
            _ = try await watcher.until("the bot joining") { seen in
                seen.events(in: roomID, type: "m.room.member").first { $0.stateKey == botID && $0.membership == "join" }
            }
            for index in 0..<total { try await alice.sendText("/ping \(index)", to: roomID, transactionID: "ping-\(index)") }
            // Some replies are out, most are still queued or not yet decided.
            _ = try await watcher.until("five replies") { seen in
                seen.messages(in: roomID).filter { $0.sender == botID }.count >= 5 ? true : nil
            }
        } catch {
            _ = try? await first.stop(SIGKILL)
            throw error
        }
        #expect(try await first.stop(SIGKILL) == 128 + SIGKILL)

        let second = try SpawnedProcess(binary, ["run", "--config", config], environment: environment)
        do {
            try await alice.sendText("/ping end", to: roomID, transactionID: "ping-end")
            let seen = try await watcher.until("every reply and the last", hangGuard: .seconds(120)) { seen in
                seen.messages(in: roomID).contains { $0.sender == botID && $0.body == "pong end" } ? seen : nil
            }
            let replies = seen.messages(in: roomID).filter { $0.sender == botID }.compactMap(\.body)
            #expect(replies.count == total + 1, "replies: \(replies)")
            #expect(Set(replies) == Set((0..<total).map { "pong \($0)" } + ["pong end"]))
            let status = try await second.stop(SIGTERM)
            #expect(status == 0, "exit status \(status); standard error: \(second.errors)")
        } catch {
            _ = try? await second.stop(SIGKILL)
            throw error
        }
    }

    @Test func theModeratorRedactsABannedWordMutesByPowerLevelAndKicksOnTheLadder() async throws {
        let server = try await SynapseTestServer.shared()
        let owner = try await server.newClient("owner")
        let mallory = try await server.newClient("mallory")
        let botName = server.newUsername("moderator")
        let password = "bot-password-\(botName)"
        _ = try await server.register(botName, password: password)
        let botID = server.userID(botName)
        let malloryID = try mallory.currentUser()
        let alias = server.newUsername("lobby")
        var levels = PowerLevels()
        levels.users = [botID.rawValue: 100]
        let roomID = try await owner.createRoom(NewRoom(preset: "public_chat", aliasLocalpart: alias, powerLevels: levels))
        try await mallory.join(.id(roomID))

        let folder = try BotFolder.make("moderator", """
            bot: moderator
            account: { username: moderator, password: not-used-on-matrix }
            platform:
              matrix:
                homeserver: \(server.baseURL)
                user: "\(botID.rawValue)"
                password_env: HELPDESK_MATRIX_PASSWORD
                rooms: { lobby: "#\(alias):\(server.serverName)" }
            listen: ["group:lobby"]
            on_start: { backlog: all }
            rules:
              - name: banned-words
                when: { text: { any_word: [scam, "free money"], normalize: true } }
                do:
                  - delete: message
                  - strike: { counter: spam, decay: 24h, escalate: [ { mute: 10m }, kick ] }
            """)
        defer { BotFolder.remove(folder) }
        let runner = try Self.startRunner(folder, password: password)
        defer { Task { await runner.stop() } }

        let watcher = SyncWatcher(owner)
        _ = try await watcher.until("the bot joining") { seen in
            seen.events(in: roomID, type: "m.room.member").first { $0.stateKey == botID.rawValue && $0.membership == "join" }
        }
        // First strike: the message is redacted and mallory muted (a level below what messages need).
        let spam = try await mallory.sendText("FREE m0ney, DM me", to: roomID, transactionID: "spam-1")
        _ = try await watcher.until("the redaction") { seen in
            seen.events(in: roomID, type: "m.room.redaction").first { $0.redacts == spam }
        }
        _ = try await watcher.until("mallory muted") { seen in
            seen.events(in: roomID, type: "m.room.power_levels").last.flatMap { event in
                (event.content["users"]?[malloryID.rawValue]?.integer ?? 0) < 0 ? event : nil
            }
        }
        let refused = await #expect(throws: IMClientError.self) {
            try await mallory.sendText("let me talk", to: roomID, transactionID: "muted-1")
        }
        #expect(refused?.apiCode == .forbidden)

        // The owner lets her talk again; her next banned word is the ladder's second step: a kick.
        try await owner.unmute(malloryID, in: roomID)
        let again = try await mallory.sendText("a scam again", to: roomID, transactionID: "spam-2")
        _ = try await watcher.until("the second redaction") { seen in
            seen.events(in: roomID, type: "m.room.redaction").first { $0.redacts == again }
        }
        _ = try await watcher.until("mallory kicked") { seen in
            seen.events(in: roomID, type: "m.room.member").first {
                $0.stateKey == malloryID.rawValue && $0.membership == "leave" && $0.sender == botID.rawValue
            }
        }
        await runner.stop()
    }

    /// An Alertmanager notification (webhook version 4) of the `DiskFull` group.
    private static func diskFull(_ instances: [(String, String)]) -> Data {
        let alerts: [[String: Any]] = instances.map { name, status in
            [
                "status": status, "labels": ["alertname": "DiskFull", "instance": name, "severity": "critical"],
                "annotations": ["summary": "disk full on \(name)"], "startsAt": "2026-01-05T09:00:00Z",
                "endsAt": status == "resolved" ? "2026-01-05T09:30:00Z" : "0001-01-01T00:00:00Z",
                "generatorURL": "http://prometheus.example/graph", "fingerprint": "fp-\(name)",
            ]
        }
        let body: [String: Any] = [
            "version": "4", "status": instances.contains { $0.1 == "firing" } ? "firing" : "resolved",
            "receiver": "chat", "groupKey": #"{}:{alertname="DiskFull"}"#, "truncatedAlerts": 0,
            "groupLabels": ["alertname": "DiskFull"], "commonLabels": ["alertname": "DiskFull", "severity": "critical"],
            "commonAnnotations": [:] as [String: String], "externalURL": "http://alertmanager.example", "alerts": alerts,
        ]
        return (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data()
    }

    @Test func anAlertmanagerWebhookBecomesALivingMessageEditedInPlaceAndResolvedAcrossARestart() async throws {
        let server = try await SynapseTestServer.shared()
        let owner = try await server.newClient("owner")
        let botName = server.newUsername("alerts")
        let password = "bot-password-\(botName)"
        _ = try await server.register(botName, password: password)
        let botID = server.userID(botName).rawValue
        let alias = server.newUsername("oncall")
        let roomID = try await owner.createRoom(NewRoom(preset: "public_chat", aliasLocalpart: alias))
        let token = "t0ken-of-the-test"

        let folder = try BotFolder.make("alerts", """
            bot: alerts
            account: { username: alerts, password: not-used-on-matrix }
            platform:
              matrix:
                homeserver: \(server.baseURL)
                user: "\(botID)"
                password_env: HELPDESK_MATRIX_PASSWORD
                rooms: { oncall: "#\(alias):\(server.serverName)" }
            join: ["group:oncall"]
            limits: { per_conversation: 1000/s, per_group: 1000/s, total: 1000/s }
            webhooks:
              - { path: /hooks/alertmanager, format: alertmanager, secret: \(token) }
            rules:
              - name: critical
                when: { webhook: /hooks/alertmanager }
                do: [ { incident: { to: "group:oncall", flap_hold: 0s } } ]
            """)
        defer { BotFolder.remove(folder) }
        let configuration = RunnerConfiguration(
            serverURL: "http://127.0.0.1:9", botsDirectory: folder + "/bots", stateDirectory: folder + "/state",
            listen: ListenAddress(host: "127.0.0.1", port: 0),
            environment: ["HELPDESK_MATRIX_PASSWORD": password], watchInterval: 0, pollTimeout: 2)
        var runner = try BotRunner(configuration: configuration, logger: Logger(label: "matrix-alerts-test"))
        var task = Task { [runner] in try await runner.run() }
        defer { task.cancel() }

        var port = 0
        try await eventually("the runner listening") {
            port = runner.port ?? 0
            return port != 0
        }
        let watcher = SyncWatcher(owner)
        _ = try await watcher.until("the bot joining") { seen in
            seen.events(in: roomID, type: "m.room.member").first { $0.stateKey == botID && $0.membership == "join" }
        }
        // Sent again on 503, as Alertmanager does: a runner just started answers so until
        // its bot serves the path.
        func post(_ instances: [(String, String)]) async throws {
            var answer = TransportResponse(status: 0, headers: [], body: Data())
            try await eventually("the webhook taken") {
                answer = try await SynapseTestServer.transport.send(TransportRequest(
                    method: "POST", url: "http://127.0.0.1:\(port)/hooks/alertmanager",
                    headers: [("Content-Type", "application/json"), ("Authorization", "Bearer \(token)")],
                    body: Self.diskFull(instances)))
                return answer.status != 503
            }
            #expect(answer.status / 100 == 2, "HTTP \(answer.status): \(String(decoding: answer.body, as: UTF8.self))")
        }

        try await post([("db-7", "firing")])
        let living = try await watcher.until("the incident's message") { seen in
            seen.messages(in: roomID).first { $0.sender == botID && $0.replaces == nil && $0.body?.contains("DiskFull") == true }
        }
        let livingID = try #require(living.eventID)
        #expect(living.body?.contains("db-7") == true)

        try await post([("db-7", "firing"), ("db-9", "firing")])
        let grown = try await watcher.until("the message edited with db-9") { seen in
            seen.messages(in: roomID).first { $0.replaces == livingID && $0.newBody?.contains("db-9") == true }
        }
        #expect(grown.sender == botID)

        // A restart between two notifications: the journal knows the living message, and
        // the resolution edits it in place still.
        task.cancel()
        _ = try? await task.value
        runner = try BotRunner(configuration: configuration, logger: Logger(label: "matrix-alerts-test"))
        task = Task { [runner] in try await runner.run() }
        port = 0
        try await eventually("the runner listening again") {
            port = runner.port ?? 0
            return port != 0
        }
        try await post([("db-7", "resolved"), ("db-9", "resolved")])
        let resolved = try await watcher.until("the message edited to resolved") { seen in
            seen.messages(in: roomID).first { $0.replaces == livingID && $0.newBody?.contains("RESOLVED") == true }
        }
        #expect(resolved.sender == botID)
        // One living message: every later change is an edit of it or a reply to it.
        let seen = await watcher.seen
        let posts = seen.messages(in: roomID).filter { $0.sender == botID && $0.replaces == nil && $0.inReplyTo == nil }
        #expect(posts.map(\.eventID) == [livingID])
        task.cancel()
        _ = try? await task.value
    }

    @Test func aRateLimitedHomeserverSlowsOneRoomOnly() async throws {
        // A homeserver of its own whose users may send one message a second after a burst
        // of three; the people of the test are exempt (Synapse's per-user override).
        let server = try await SynapseTestServer.start { config in
            config.messagesPerSecond = 1
            config.messageBurst = 3
        }
        let admin = try await server.register(server.newUsername("admin"), password: "admin-password", admin: true)
        let alice = try await server.newClient("alice")
        let aliceID = try alice.currentUser()
        let exempt = try await SynapseTestServer.transport.send(TransportRequest(
            method: "POST",
            url: server.baseURL + "/_synapse/admin/v1/users/\(aliceID.rawValue)/override_ratelimit",
            headers: [("Authorization", "Bearer \(admin.accessToken)"), ("Content-Type", "application/json")],
            body: Data(#"{"messages_per_second":0,"burst_count":0}"#.utf8)))
        #expect(exempt.status == 200)
        let botName = server.newUsername("pinger")
        let password = "bot-password-\(botName)"
        _ = try await server.register(botName, password: password)
        let botID = server.userID(botName).rawValue
        let busyAlias = server.newUsername("busy")
        let quietAlias = server.newUsername("quiet")
        let busy = try await alice.createRoom(NewRoom(preset: "public_chat", aliasLocalpart: busyAlias))
        let quiet = try await alice.createRoom(NewRoom(preset: "public_chat", aliasLocalpart: quietAlias))

        let folder = try BotFolder.make("pinger", """
            bot: pinger
            account: { username: pinger, password: not-used-on-matrix }
            platform:
              matrix:
                homeserver: \(server.baseURL)
                user: "\(botID)"
                password_env: HELPDESK_MATRIX_PASSWORD
                rooms: { busy: "#\(busyAlias):\(server.serverName)", quiet: "#\(quietAlias):\(server.serverName)" }
            on_start: { backlog: all }
            limits: { per_conversation: 1000/s, per_group: 1000/s, total: 1000/s }
            loop_guard: { max_replies_per_minute: 10000 }
            rules:
              - name: pong
                when: { command: ping }
                do: [ { reply: "pong {{args}}" } ]
            """)
        defer { BotFolder.remove(folder) }
        let runner = try Self.startRunner(folder, password: password)
        defer { Task { await runner.stop() } }

        let watcher = SyncWatcher(alice)
        _ = try await watcher.until("the bot joining both rooms") { seen in
            let joined = [busy, quiet].allSatisfy { room in
                seen.events(in: room, type: "m.room.member").contains { $0.stateKey == botID && $0.membership == "join" }
            }
            return joined ? true : nil
        }
        let flood = 12
        for index in 0..<flood { try await alice.sendText("/ping busy-\(index)", to: busy, transactionID: "busy-\(index)") }
        _ = try await watcher.until("the first replies in the busy room") { seen in
            seen.messages(in: busy).contains { $0.sender == botID } ? true : nil
        }
        try await alice.sendText("/ping quiet", to: quiet, transactionID: "quiet-1")
        let seen = try await watcher.until("every reply", hangGuard: .seconds(120)) { seen in
            let busyReplies = seen.messages(in: busy).filter { $0.sender == botID }.count
            let quietReply = seen.messages(in: quiet).contains { $0.sender == botID }
            return busyReplies == flood && quietReply ? seen : nil
        }
        // The quiet room's reply did not wait behind the busy room's rate-limited queue:
        // it arrived before the busy room's last reply.
        let quietReply = try #require(seen.messages(in: quiet).first { $0.sender == botID })
        let lastBusy = try #require(seen.messages(in: busy).last { $0.sender == botID })
        #expect(quietReply.body == "pong quiet")
        let quietPlace = try #require(quietReply.eventID.flatMap { seen.arrival[$0] })
        let lastBusyPlace = try #require(lastBusy.eventID.flatMap { seen.arrival[$0] })
        #expect(quietPlace < lastBusyPlace)
        #expect(Set(seen.messages(in: busy).filter { $0.sender == botID }.compactMap(\.body))
                == Set((0..<flood).map { "pong busy-\($0)" }))
        await runner.stop()
    }
}
