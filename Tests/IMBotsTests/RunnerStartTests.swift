import Foundation
import IMBots
import IMProtocol
import TestSupport
import Testing

extension ServerSuites {
    /// What a bot does when it starts: its profile, its groups, and the messages that came
    /// while it was down.
    @Suite(.timeLimit(.minutes(3))) struct RunnerStartTests {
        @Test func theProfileAndJoinsOfTheFileAreAppliedAtStart() async throws {
            try await withBotsFolder { server, fixture, adminToken in
                try fixture.write(
                    RunnerFixture.echoBot().replacingOccurrences(
                        of: "on_start: { backlog: all }",
                        with: """
                            on_start: { backlog: all }
                            profile: { nickname: "Echo Bot", signature: "I repeat", attrs: { team: qa } }
                            join: ["group:echoes", "room:lobby"]
                            """))
                try await withRunningRunner(fixture.configuration(server: server, adminToken: adminToken)) { _ in
                    let (alice, _) = try await server.client.register("alice")
                    try await alice.awaitUser("echo")
                    var profile = try await alice.get("/v1/users/echo").decode(User.self)
                    try await eventually("the profile was applied") {
                        profile = try await alice.get("/v1/users/echo").decode(User.self)
                        return profile.nickname == "Echo Bot" && !profile.attrs.isEmpty
                    }
                    #expect(profile.signature == "I repeat")
                    #expect(profile.attrs == ["team": "qa"])
                    #expect(profile.isBot)
                    let (admin, _) = try await server.createAccount("ops", admin: true)
                    var members: [Member] = []
                    try await eventually("echo created and joined group:echoes") {
                        // The bot makes the group, invite-only: an administrator lets alice in.
                        _ = try await admin.send("POST", "/v1/groups/echoes/invites", json: GroupInviteRequest(user: "alice"))
                        _ = try await alice.send("POST", "/v1/groups/echoes/join")
                        members = (try? await alice.get("/v1/groups/echoes/members").decode(MemberList.self).members) ?? []
                        return members.contains { $0.user.username == "echo" }
                    }
                    #expect(members.contains { $0.user.username == "echo" && $0.role == .owner })
                }
            }
        }

        @Test(arguments: ["all", "skip"])
        func messagesSentWhileTheBotWasDownFollowTheBacklogPolicy(_ backlog: String) async throws {
            try await withBotsFolder { server, fixture, adminToken in
                try fixture.write(
                    RunnerFixture.echoBot().replacingOccurrences(of: "backlog: all", with: "backlog: \(backlog)"))
                let (alice, _) = try await server.client.register("alice")
                let configuration = fixture.configuration(server: server, adminToken: adminToken)
                let start = try await withRunningRunner(configuration) { _ in
                    try await alice.awaitUser("echo")
                    // A first start begins at the present: the bot handles what comes once it polls.
                    try await server.awaitParkedPolls(1)
                    let start = try await alice.cursorNow()
                    try await alice.say("before", to: "echo")
                    _ = try await alice.messages(from: "echo", count: 1, after: start)
                    return start
                }
                try await server.awaitParkedPolls(0)
                try await alice.say("while down", to: "echo")
                try await withRunningRunner(configuration) { _ in
                    // The bot is back once its poll is parked; what comes after that is not backlog.
                    try await server.awaitParkedPolls(1)
                    try await alice.say("after", to: "echo")
                    // Every reply since the start: the one to "before", then those of the restart.
                    let replies = try await alice.messages(from: "echo", count: backlog == "all" ? 3 : 2, after: start)
                    #expect(replies.last == "echo: after")
                }
                let all = try await alice.history(with: "echo").filter { $0.sender == "echo" }.map(\.text)
                if backlog == "all" {
                    #expect(all == ["echo: before", "echo: while down", "echo: after"])
                } else {
                    #expect(all == ["echo: before", "echo: after"])
                }
            }
        }
    }
}

extension ServerSuites {
    @Suite(.timeLimit(.minutes(3))) struct RunnerFleetTests {
        /// New bots get their accounts created before they log in: sixty bots starting at once
        /// from one address must not look like password guessing (the server locks an address
        /// out after 50 failed logins).
        @Test func manyNewBotsStartWithoutLockingTheRunnerOut() async throws {
            try await withBotsFolder { server, fixture, adminToken in
                let count = 60
                for index in 0..<count {
                    try RunnerFixture.echoBot(username: "fleet\(index)")
                        .replacingOccurrences(of: "bot: echo", with: "bot: fleet\(index)")
                        .write(toFile: fixture.bots + "/fleet\(index).yaml", atomically: true, encoding: .utf8)
                }
                try await withRunningRunner(fixture.configuration(server: server, adminToken: adminToken)) { running in
                    let (alice, _) = try await server.client.register("alice")
                    for index in 0..<count { try await alice.awaitUser("fleet\(index)") }
                    #expect(!running.logs.contains("too many failed logins"))
                }
            }
        }
    }
}
