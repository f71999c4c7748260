import Foundation
import IMBots
import IMClient
import IMProtocol
import TestSupport
import Testing

extension ServerSuites {
    /// A bot file the runner cannot take is visible where operators look: `/healthz` says
    /// "degraded" and which bots run on old rules (or not at all) and why, `/metrics`
    /// counts failed reloads per bot, and the healthy bots run meanwhile.
    @Suite(.timeLimit(.minutes(3))) struct RunnerHealthTests {
        /// A bot file with an unknown key and a misspelt matcher.
        static let broken = """
            bot: broken
            account: { username: broken, password: broken-password, register: true }
            rules:
              - name: r
                when: { direkt: true }
                do: [ { repyl: hi } ]
            """

        struct Health: Decodable {
            struct Problem: Decodable {
                var file: String
                var bot: String
                var state: String
                var version: String?
                var errors: [String]
            }

            /// Who runs a bot, with journals on the server.
            struct Lease: Decodable, Equatable {
                var bot: String
                var state: String
                var fence: Int64?
                var holder: String?
            }

            var status: String
            var bots: [String]
            var problems: [Problem]
            /// This runner as leases name it, and its bots' leases: with journals on the server only.
            var holder: String?
            var leases: [Lease]?
        }

        static func health(_ running: RunningRunner) async throws -> Health {
            let answer = try await TestClient(baseURL: "http://127.0.0.1:\(try #require(running.runner.port))")
                .get("/healthz")
            #expect(answer.status == 200)
            return try JSONDecoder().decode(Health.self, from: answer.body)
        }

        static func metrics(_ running: RunningRunner) async throws -> String {
            try await TestClient(baseURL: "http://127.0.0.1:\(try #require(running.runner.port))").get("/metrics").text
        }

        @Test func aBrokenFileAtStartLeavesTheHealthyBotsRunningAndIsReported() async throws {
            try await withBotsFolder { server, fixture, adminToken in
                try fixture.write(RunnerFixture.echoBot())
                try fixture.write(Self.broken, as: "broken.yaml")
                let configuration = fixture.configuration(server: server, adminToken: adminToken, listen: true)
                try await withRunningRunner(configuration) { running in
                    let (alice, _) = try await server.client.register("alice")
                    try await alice.awaitUser("echo")
                    try await server.awaitParkedPolls(1)
                    let start = try await alice.cursorNow()
                    try await alice.say("still answering?", to: "echo")
                    #expect(try await alice.messages(from: "echo", count: 1, after: start) == ["echo: still answering?"])

                    let health = try await Self.health(running)
                    #expect(health.status == "degraded")
                    #expect(health.bots == ["echo"])
                    let problem = try #require(health.problems.first)
                    #expect(health.problems.count == 1)
                    #expect(problem.file == fixture.bots + "/broken.yaml")
                    #expect(problem.bot == "broken")
                    #expect(problem.state == "not_running")
                    #expect(problem.version == nil)
                    #expect(problem.errors == [
                        "\(fixture.bots)/broken.yaml:5:13: unknown key 'direkt' (did you mean 'direct'?)",
                        "\(fixture.bots)/broken.yaml:6:13: unknown key 'repyl' (did you mean 'reply'?)",
                    ])
                    #expect(running.runner.health.isDegraded)
                    #expect(try await Self.metrics(running).contains("switchboard_bot_config_failing{bot=\"broken\"} 1"))
                    try await running.logs.line(containing: "broken.yaml has 2 problem(s); bot broken does not run")

                    // Fixed, the bot starts and the runner is healthy again.
                    try fixture.write(RunnerFixture.echoBot(username: "broken").replacingOccurrences(
                        of: "bot: echo", with: "bot: broken"), as: "broken.yaml")
                    #expect(await running.runner.reload().isEmpty)
                    let fixed = try await Self.health(running)
                    #expect(fixed.status == "ok")
                    #expect(fixed.problems.isEmpty)
                    #expect(fixed.bots == ["broken", "echo"])
                    #expect(try await Self.metrics(running).contains("switchboard_bot_config_failing{bot=\"broken\"} 0"))
                }
            }
        }

        @Test func aFailedReloadKeepsTheOldRulesAndIsCountedOncePerChange() async throws {
            try await withBotsFolder { server, fixture, adminToken in
                try fixture.write(RunnerFixture.echoBot(prefix: "v1"))
                let configuration = fixture.configuration(server: server, adminToken: adminToken, listen: true)
                try await withRunningRunner(configuration) { running in
                    let (alice, _) = try await server.client.register("alice")
                    try await alice.awaitUser("echo")
                    try await server.awaitParkedPolls(1)
                    #expect(!running.runner.health.isDegraded)
                    let before = try await Self.metrics(running)
                    #expect(before.contains("switchboard_bot_reload_failures_total{bot=\"echo\"} 0"))
                    #expect(before.contains("switchboard_bot_config_failing{bot=\"echo\"} 0"))
                    // Journals in the state folder: no leases to show.
                    #expect(!before.contains("switchboard_bot_lease_"))
                    let folderHealth = try await Self.health(running)
                    #expect(folderHealth.holder == nil && folderHealth.leases == nil)
                    let version = try fixture.version()

                    try fixture.write(RunnerFixture.echoBot(prefix: "v2").replacingOccurrences(of: "reply:", with: "repyl:"))
                    #expect(!(await running.runner.reload()).isEmpty)
                    let health = try await Self.health(running)
                    #expect(health.status == "degraded")
                    #expect(health.bots == ["echo"])
                    #expect(health.problems.map(\.state) == ["old_rules"])
                    #expect(health.problems.first?.version == version)
                    #expect(health.problems.first?.errors.first?.contains("unknown key 'repyl' (did you mean 'reply'?)") == true)
                    #expect(running.runner.metrics.reloadFailures(bot: "echo") == 1)
                    #expect(try await Self.metrics(running).contains("switchboard_bot_reload_failures_total{bot=\"echo\"} 1"))

                    // The same bytes again (a SIGHUP) are not a new failure; other bytes are.
                    _ = await running.runner.reload()
                    #expect(running.runner.metrics.reloadFailures(bot: "echo") == 1)
                    try fixture.write(RunnerFixture.echoBot(prefix: "v3").replacingOccurrences(
                        of: "expect: { reply: \"v3: hi\" }", with: "expect: { reply: \"nope\" }"))
                    let failures = await running.runner.reload()
                    #expect(failures.count == 1)
                    #expect(failures.first?.contains("rule 'echo' example 1: failed: expected reply \"nope\"") == true)
                    #expect(running.runner.metrics.reloadFailures(bot: "echo") == 2)

                    let start = try await alice.cursorNow()
                    try await alice.say("which rules?", to: "echo")
                    #expect(try await alice.messages(from: "echo", count: 1, after: start) == ["v1: which rules?"])

                    try fixture.write(RunnerFixture.echoBot(prefix: "v4"))
                    #expect(await running.runner.reload().isEmpty)
                    #expect(try await Self.health(running).status == "ok")
                }
            }
        }

        @Test func withStrictABrokenFileStopsTheStartWithEveryError() async throws {
            try await withBotsFolder { server, fixture, adminToken in
                try fixture.write(RunnerFixture.echoBot())
                try fixture.write(Self.broken, as: "broken.yaml")
                var configuration = fixture.configuration(server: server, adminToken: adminToken)
                configuration.strict = true
                let runner = try BotRunner(configuration: configuration)
                let error = await #expect(throws: RunnerError.self) { try await runner.run() }
                let text = error?.description ?? ""
                #expect(text.contains("broken.yaml:") && text.contains("'repyl'") && text.contains("'direkt'"))
                // Not even the healthy bot started (its account would have been made first).
                let (alice, _) = try await server.client.register("alice")
                #expect(try await alice.get("/v1/users/echo").status == 404)
            }
        }

        @Test func whenNoBotCanStartTheRunnerStopsWithEveryError() async throws {
            try await withBotsFolder { server, fixture, adminToken in
                try fixture.write(Self.broken, as: "broken.yaml")
                let runner = try BotRunner(configuration: fixture.configuration(server: server, adminToken: adminToken))
                let error = await #expect(throws: RunnerError.self) { try await runner.run() }
                let text = error?.description ?? ""
                #expect(text.hasPrefix("no bot can start:\n"))
                #expect(text.contains("'repyl'") && text.contains("'direkt'"))
            }
        }
    }
}

extension RunnerFixture {
    /// The version (hash) of the rules in `echo.yaml` now.
    func version(of name: String = "echo.yaml") throws -> String {
        try BotLoader.load(file: bots + "/" + name, environment: [:]).version
    }
}
