import Foundation
import IMBots
import IMProtocol
import TestSupport
import Testing

/// What a bot does when it starts: its profile, its groups, and the messages that came
/// while it was down.
@Suite struct RunnerStartTests {
    @Test func theProfileAndJoinsOfTheFileAreAppliedAtStart() async throws {
        let server = try await TestServer.start()
        let fixture = try RunnerFixture()
        defer { fixture.remove() }
        try fixture.write(
            RunnerFixture.echoBot().replacingOccurrences(
                of: "on_start: { backlog: all }",
                with: """
                    on_start: { backlog: all }
                    profile: { nickname: "Echo Bot", signature: "I repeat", attrs: { team: qa } }
                    join: ["group:echoes", "room:lobby"]
                    """))
        try await RunnerFixture.provisionBot(on: server)
        let (admin, _) = try await server.createAccount("ops", admin: true)
        let running = try RunningRunner(fixture.configuration(server: server))
        let (alice, _) = try await server.client.register("alice")
        try await alice.awaitUser("echo")
        let deadline = Date().addingTimeInterval(30)
        var profile = try await alice.get("/v1/users/echo").decode(User.self)
        while profile.nickname != "Echo Bot" || profile.attrs.isEmpty, Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
            profile = try await alice.get("/v1/users/echo").decode(User.self)
        }
        #expect(profile.nickname == "Echo Bot")
        #expect(profile.signature == "I repeat")
        #expect(profile.attrs == ["team": "qa"])
        #expect(profile.isBot)
        var members: [Member] = []
        while !members.contains(where: { $0.user.username == "echo" }), Date() < deadline {
            // The bot makes the group, invite-only: an administrator lets alice in.
            _ = try await admin.send("POST", "/v1/groups/echoes/invites", json: GroupInviteRequest(user: "alice"))
            _ = try await alice.send("POST", "/v1/groups/echoes/join")
            members = (try? await alice.get("/v1/groups/echoes/members").decode(MemberList.self).members) ?? []
            if members.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(members.contains { $0.user.username == "echo" && $0.role == .owner })
        await running.stop()
        await server.stop()
        server.removeData()
    }

    @Test(arguments: ["all", "skip"])
    func messagesSentWhileTheBotWasDownFollowTheBacklogPolicy(_ backlog: String) async throws {
        let server = try await TestServer.start()
        let fixture = try RunnerFixture()
        defer { fixture.remove() }
        try fixture.write(
            RunnerFixture.echoBot().replacingOccurrences(of: "backlog: all", with: "backlog: \(backlog)"))
        let (alice, _) = try await server.client.register("alice")
        try await RunnerFixture.provisionBot(on: server)
        var running = try RunningRunner(fixture.configuration(server: server))
        try await alice.awaitUser("echo")
        // A first start begins at the present: the bot handles what comes once it polls.
        try await server.awaitParkedPolls(1)
        let start = try await alice.cursorNow()
        try await alice.say("before", to: "echo")
        _ = try await alice.messages(from: "echo", count: 1, after: start)
        await running.stop()
        try await server.awaitParkedPolls(0)

        try await alice.say("while down", to: "echo")
        running = try RunningRunner(fixture.configuration(server: server))
        // The bot is back once its poll is parked; what comes after that is not backlog.
        try await server.awaitParkedPolls(1)
        try await alice.say("after", to: "echo")
        // Every reply since the start: the one to "before", then those of the restart.
        let replies = try await alice.messages(from: "echo", count: backlog == "all" ? 3 : 2, after: start)
        #expect(replies.last == "echo: after")
        await running.stop()
        let all = try await alice.history(with: "echo").filter { $0.sender == "echo" }.map(\.text)
        if backlog == "all" {
            #expect(all == ["echo: before", "echo: while down", "echo: after"])
        } else {
            #expect(all == ["echo: before", "echo: after"])
        }
        await server.stop()
        server.removeData()
    }
}

@Suite struct RunnerFleetTests {
    /// New bots register before trying to log in: sixty bots starting at once from one
    /// address must not look like password guessing (the server locks an address out
    /// after 50 failed logins).
    @Test func manyNewBotsStartWithoutLockingTheRunnerOut() async throws {
        let server = try await TestServer.start()
        let fixture = try RunnerFixture()
        defer {
            fixture.remove()
            server.removeData()
        }
        let count = 60
        for index in 0..<count {
            try RunnerFixture.echoBot(username: "fleet\(index)")
                .replacingOccurrences(of: "bot: echo", with: "bot: fleet\(index)")
                .write(toFile: fixture.bots + "/fleet\(index).yaml", atomically: true, encoding: .utf8)
            try await RunnerFixture.provisionBot("fleet\(index)", on: server)
        }
        let running = try RunningRunner(fixture.configuration(server: server))
        let (alice, _) = try await server.client.register("alice")
        for index in 0..<count { try await alice.awaitUser("fleet\(index)") }
        #expect(!running.logs.lines.contains { $0.message.contains("too many failed logins") })
        await running.stop()
        await server.stop()
    }
}
