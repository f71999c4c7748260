import Foundation
@testable import IMBots
import IMProtocol
import TestSupport
import Testing

extension ServerSuites {
    /// With journals on the server, what operators see of the leases: `/healthz` says which
    /// runner runs each bot (and stays "ok" in the runner that does not), `/metrics` shows
    /// the holding and counts holdings taken and lost, and passes `promtool check metrics`.
    @Suite(.timeLimit(.minutes(3))) struct RunnerLeaseHealthTests {
        typealias Lease = RunnerHealthTests.Health.Lease

        /// A runner of the fixture's bots with journals on the server, as `id`. The ttl is
        /// long: nothing here waits for a lease to end, a stopped runner releases its own.
        static func configuration(_ id: String, _ server: TestServer, _ fixture: RunnerFixture, adminToken: String)
            -> RunnerConfiguration
        {
            var configuration = fixture.configuration(server: server, adminToken: adminToken,
                                                      state: fixture.root + "/state-\(id)", listen: true)
            configuration.journal = .server(LeaseSettings(runnerID: id, ttl: .seconds(60), retry: .milliseconds(100)))
            return configuration
        }

        /// The value of `bot`'s sample of `name` on a runner's `/metrics`, if it has one.
        static func sample(_ name: String, bot: String = "echo", in metrics: String) -> String? {
            let prefix = "\(name){bot=\"\(bot)\"} "
            return metrics.split(separator: "\n").first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
        }

        /// held, taken and lost, as `/metrics` shows them for the bot.
        static func leaseSeries(_ running: RunningRunner) async throws -> [String?] {
            let metrics = try await RunnerHealthTests.metrics(running)
            return ["held", "taken_total", "lost_total"].map { sample("switchboard_bot_lease_\($0)", in: metrics) }
        }

        @Test func healthAndMetricsSayWhichRunnerRunsTheBot() async throws {
            try await withBotsFolder { server, fixture, adminToken in
                try fixture.write(RunnerFixture.echoBot())
                let a = Self.configuration("runner-a", server, fixture, adminToken: adminToken)
                try await withRunningRunner(a) { first in
                    var health: RunnerHealthTests.Health?
                    try await eventually("runner A holds the bot") {
                        guard first.runner.port != nil else { return false }
                        health = try await RunnerHealthTests.health(first)
                        return health?.leases == [Lease(bot: "echo", state: "here", fence: 1)]
                    }
                    let holderA = try #require(health?.holder)
                    #expect(holderA.hasPrefix("runner-a/"))
                    #expect(try await Self.leaseSeries(first) == ["1", "1", "0"])

                    let b = Self.configuration("runner-b", server, fixture, adminToken: adminToken)
                    try await withRunningRunner(b) { second in
                        // B names A as the holder, and is healthy: a bot held elsewhere is no problem.
                        try await eventually("runner B sees A's holding") {
                            guard second.runner.port != nil else { return false }
                            health = try await RunnerHealthTests.health(second)
                            return health?.leases == [Lease(bot: "echo", state: "elsewhere", holder: holderA)]
                        }
                        #expect(health?.status == "ok" && health?.problems.isEmpty == true)
                        #expect(health?.bots == ["echo"])
                        #expect(health?.holder?.hasPrefix("runner-b/") == true)
                        #expect(try await Self.leaseSeries(second) == ["0", "0", "0"])

                        // A stops and releases the bot; B takes it at its next try and answers.
                        await first.stop()
                        try await eventually("runner B holds the bot") {
                            try await RunnerHealthTests.health(second).leases == [Lease(bot: "echo", state: "here", fence: 2)]
                        }
                        #expect(try await Self.leaseSeries(second) == ["1", "1", "0"])
                        let (alice, _) = try await server.client.register("alice")
                        let start = try await alice.cursorNow()
                        try await alice.say("who answers?", to: "echo")
                        #expect(try await alice.messages(from: "echo", count: 1, after: start) == ["echo: who answers?"])

                        let metrics = try await TestClient(baseURL: "http://127.0.0.1:\(try #require(second.runner.port))")
                            .get("/metrics")
                        try await Self.expectPromtoolPasses(metrics.body, folder: fixture.root)
                    }
                }
            }
        }

        static func expectPromtoolPasses(_ metrics: Data, folder: String) async throws {
            try #require(Promtool.isInstalled, Comment(rawValue: Promtool.missing))
            let (status, complaints) = try await Promtool.check(metrics, folder: folder)
            #expect(status == 0 && complaints.isEmpty,
                    "promtool check metrics: \(complaints)\n\(String(decoding: metrics, as: UTF8.self))")
        }
    }
}
