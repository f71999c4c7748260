import Foundation
import IMProtocol
import TestSupport
import Testing

/// The README's demo, step by step (issue 8, item 7; issue 11, item 8): the help desk bot
/// forwards an urgent message into `group:oncall`, which an uninvited account cannot
/// read, join or see, until an operator (an administrator made on the data folder)
/// invites it with `switchboard group invite` and it joins with `switchboard group join`.
@Suite struct ReadmeDemoTests {
    @Test func anUninvitedAccountCannotReadTheOnCallGroupUntilAnOperatorInvitesIt() async throws {
        try await withServer { server in
            // The bot's account is made by an administrator (`switchboard up` does it with
            // its local credential); the bot makes its groups as the runner's `join` does:
            // with the default policy, invite-only.
            let (bot, _) = try await server.createAccount("helpdesk", password: "helpdesk password", bot: true)
            for group in ["support", "oncall"] {
                let created = try await bot.send("POST", "/v1/groups", json: CreateConversationRequest(name: group))
                #expect(try created.decode(ConversationInfo.self).join == .invite)
            }
            // 1-3: alice registers and messages the bot, which forwards the urgent one.
            let (alice, _) = try await server.client.register("alice", password: "password123")
            _ = try await alice.send(
                "POST", "/v1/conversations/user:helpdesk/messages", json: SendMessageRequest(text: "URGENT the vpn is down"))
            let forwarded = "⚠️ alice in user:alice: URGENT the vpn is down"
            _ = try await bot.send("POST", "/v1/conversations/group:oncall/messages", json: SendMessageRequest(text: forwarded))

            for answer in [
                try await alice.get("/v1/conversations/group:oncall/messages"),
                try await alice.send("POST", "/v1/groups/oncall/join"),
                try await alice.get("/v1/groups/oncall"),
                try await alice.get("/v1/groups/oncall/members"),
            ] {
                #expect(answer.status == 404)
                #expect(answer.error?.message == "no group 'oncall'")
            }

            // 4: the operator's administrator, made on the data folder, invites alice.
            let shell = Sandbox()
            defer { shell.remove() }
            let root = ["SWITCHBOARD_PASSWORD": "root password"]
            let made = await shell.run(
                ["user", "add", "root", "--admin", "--data", server.directory],
                environment: ["SWITCHBOARD_NEW_PASSWORD": "root password"])
            let invited = await shell.run(
                ["group", "invite", "oncall", "alice", "--server", server.baseURL, "--user", "root"], environment: root)
            let members = await shell.run(
                ["group", "members", "oncall", "--server", server.baseURL, "--user", "root"], environment: root)
            #expect(made.status == 0 && invited.status == 0 && members.status == 0, "\(made.errors)\(invited.errors)\(members.errors)")
            #expect(members.outputLines == ["helpdesk\thelpdesk\towner"])

            // 5: alice joins and reads what the bot forwarded.
            let joined = await shell.run(
                ["group", "join", "oncall", "--server", server.baseURL, "--user", "alice"],
                environment: ["SWITCHBOARD_PASSWORD": "password123"])
            #expect(joined.outputLines == ["joined group:oncall"], "\(joined.errors)")
            let page = try await alice.get("/v1/conversations/group:oncall/messages").decode(MessagePage.self)
            #expect(page.messages.map(\.text).contains(forwarded))
        }
    }
}
