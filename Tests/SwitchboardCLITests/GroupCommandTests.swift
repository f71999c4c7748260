import Foundation
import IMProtocol
import TestSupport
import Testing

/// `switchboard group`: an operator (a server administrator made on the data folder)
/// manages groups through the running server, the groups a bot made included.
@Suite("switchboard group")
struct GroupCommandTests {
    static let password = UserCommandTests.password

    @Test func anOperatorLetsAPersonIntoABotsGroupAndModeratesThem() async throws {
        try await UserCommandTests.withAdministeredServer { server in
            let (bot, _) = try await server.createAccount("helpdesk", bot: true)
            _ = try await bot.send("POST", "/v1/groups", json: CreateConversationRequest(name: "oncall"))
            _ = try await server.client.register("alice", password: Self.password)
            let root = Sandbox()
            defer { root.remove() }
            let alice = Sandbox()
            defer { alice.remove() }
            let asRoot = ["--server", server.baseURL, "--user", "root"]
            let asAlice = ["--server", server.baseURL, "--user", "alice"]
            let environment = ["SWITCHBOARD_PASSWORD": Self.password]

            let uninvited = await alice.run(["group", "join", "oncall"] + asAlice, environment: environment)
            let invited = await root.run(["group", "invite", "oncall", "alice"] + asRoot, environment: environment)
            let joined = await alice.run(["group", "join", "oncall"] + asAlice, environment: environment)
            let muted = await root.run(
                ["group", "mute", "oncall", "alice", "--for", "10m", "--reason", "testing"] + asRoot, environment: environment)
            let members = await root.run(["group", "members", "oncall"] + asRoot, environment: environment)
            let unmuted = await root.run(["group", "unmute", "oncall", "alice"] + asRoot, environment: environment)
            let again = await root.run(["group", "unmute", "oncall", "alice"] + asRoot, environment: environment)
            let promoted = await root.run(["group", "promote", "oncall", "alice"] + asRoot, environment: environment)
            let info = await root.run(["group", "info", "oncall"] + asRoot, environment: environment)

            #expect(uninvited.status == 1)
            #expect(uninvited.errorLines.first == "switchboard: no group 'oncall'")
            #expect(invited.outputLines == ["invited alice to group:oncall; they accept by joining it"], "\(invited.errors)")
            #expect(joined.outputLines == ["joined group:oncall"], "\(joined.errors)")
            #expect(muted.outputLines.first?.hasPrefix("muted alice in group:oncall until ") == true, "\(muted.errors)")
            #expect(members.outputLines.first == "helpdesk\thelpdesk\towner")
            #expect(members.outputLines.last?.hasPrefix("alice\talice\tmember  [muted until ") == true, "\(members.output)")
            #expect(unmuted.outputLines == ["unmuted alice in group:oncall"])
            #expect(again.outputLines == ["nothing to do: alice is not muted in group:oncall"])
            #expect(promoted.outputLines == ["made alice an admin of group:oncall"])
            #expect(info.outputLines.contains("join: invite") && info.outputLines.contains("members: 2"), "\(info.output)")
            // Every act left its notice, naming who did it.
            let page = try await bot.get("/v1/conversations/group:oncall/messages?limit=50").decode(MessagePage.self)
            let notices = page.messages.map(\.text)
            #expect(notices.contains("root invited alice") && notices.contains("root muted alice for 10m: testing"))
        }
    }

    @Test func anApprovalGroupFromCreationToApproval() async throws {
        try await UserCommandTests.withAdministeredServer { server in
            _ = try await server.client.register("bob", password: Self.password)
            let root = Sandbox()
            defer { root.remove() }
            let bob = Sandbox()
            defer { bob.remove() }
            let asRoot = ["--server", server.baseURL, "--user", "root"]
            let environment = ["SWITCHBOARD_PASSWORD": Self.password]

            let created = await root.run(
                ["group", "create", "team", "--join", "approval", "--title", "The Team"] + asRoot, environment: environment)
            let asked = await bob.run(["group", "join", "team", "--server", server.baseURL, "--user", "bob"], environment: environment)
            let requests = await root.run(["group", "requests", "team"] + asRoot, environment: environment)
            let approved = await root.run(["group", "approve", "team", "bob"] + asRoot, environment: environment)
            let banned = await root.run(["group", "ban", "team", "bob", "--for", "1d"] + asRoot, environment: environment)
            let unbanned = await root.run(["group", "unban", "team", "bob"] + asRoot, environment: environment)

            #expect(created.outputLines == ["created group:team (join: approval)"], "\(created.errors)")
            #expect(asked.outputLines == ["asked to join group:team: an admin approves"], "\(asked.errors)")
            #expect(requests.outputLines.count == 1 && requests.outputLines.first?.hasPrefix("bob\tasked ") == true)
            #expect(approved.outputLines == ["let bob into group:team"], "\(approved.errors)")
            #expect(banned.outputLines.first?.hasPrefix("banned bob from group:team until ") == true, "\(banned.errors)")
            #expect(unbanned.outputLines == ["unbanned bob in group:team"])
        }
    }

    @Test func aPersonWhoIsNoAdminIsRefused() async throws {
        try await UserCommandTests.withAdministeredServer { server in
            let (owner, _) = try await server.client.register("owner", password: Self.password)
            _ = try await owner.send("POST", "/v1/groups", json: CreateConversationRequest(name: "club", join: .open))
            _ = try await server.client.register("mallory", password: Self.password)
            let mallory = Sandbox()
            defer { mallory.remove() }
            let asMallory = ["--server", server.baseURL, "--user", "mallory"]
            let environment = ["SWITCHBOARD_PASSWORD": Self.password]
            _ = await mallory.run(["group", "join", "club"] + asMallory, environment: environment)
            let kick = await mallory.run(["group", "kick", "club", "owner"] + asMallory, environment: environment)
            #expect(kick.status == 1)
            #expect(kick.output.isEmpty)
            #expect(kick.errorLines == ["switchboard: only the group's owner and admins may kick members"])
        }
    }

    @Test(arguments: [
        (["group"], "say what to do"),
        (["group", "smite", "ops", "bob"], "unknown group action 'smite'"),
        (["group", "invite", "ops"], "'group invite' needs a group NAME and a USER"),
        (["group", "info"], "'group info' needs one group NAME"),
        (["group", "kick", "ops", "bob", "--for", "1h"], "--for is for 'group mute' and 'group ban'"),
        (["group", "mute", "ops", "bob", "--for", "soon"], "--for 'soon' is not a duration"),
        (["group", "create", "ops", "--join", "secret"], "--join 'secret' is not a policy"),
        (["group", "info", "ops", "--join", "open"], "--join is for 'group create'"),
    ])
    func mistakesAreUsageErrors(arguments: [String], message: String) async {
        let result = await Sandbox().run(arguments + ["--user", "root"])
        #expect(result.status == 2)
        #expect(result.errorLines.first?.hasPrefix("switchboard: \(message)") == true, "\(result.errors)")
    }
}
