import Foundation
import IMProtocol
import IMServer
import TestSupport
import Testing

/// The README's demo against the server (issue 8, item 7): the help desk bot forwards an
/// urgent message into `group:oncall`, which an uninvited account cannot read, join or
/// see until an administrator, made on the data folder, invites it.
@Suite struct ReadmeDemoTests {
    @Test func anUninvitedAccountCannotReadTheOnCallGroupUntilInvited() async throws {
        try await withServer { server in
            // The bot's account is made by an administrator (`switchboard up` does it with
            // its local credential); the bot makes its groups as the runner's `join` does.
            let (bot, _) = try await server.createAccount("helpdesk", password: "helpdesk password", bot: true)
            for group in ["support", "oncall"] {
                expectStatus(try await bot.send("POST", "/v1/groups", json: CreateConversationRequest(name: group)), 201)
            }
            // 1-3: alice registers and messages the bot, which forwards the urgent one.
            let (alice, _) = try await server.client.register("alice", password: "password123")
            try await alice.message("user:helpdesk", "URGENT the vpn is down")
            try await bot.message("group:oncall", "⚠️ alice in user:alice: URGENT the vpn is down")

            for answer in [
                try await alice.get("/v1/conversations/group:oncall/messages"),
                try await alice.send("POST", "/v1/groups/oncall/join"),
                try await alice.get("/v1/groups/oncall"),
                try await alice.get("/v1/groups/oncall/members"),
            ] {
                expectError(answer, .notFound)
                #expect(answer.error?.message == "no group 'oncall'")
            }

            // 4: the operator's administrator, made on the data folder, invites alice.
            let local = try AccountAdministration(
                dataDirectory: server.directory, passwordHasher: server.app.configuration.passwordHasher)
            _ = try await local.addAccount(AdminCreateUser(username: "root", password: "root password", admin: true))
            await local.close()
            let root = try await server.client.login("root", password: "root password")
            expectStatus(try await root.send("POST", "/v1/groups/oncall/invites", json: GroupInviteRequest(user: "alice")), 201)

            // 5: alice joins and reads what the bot forwarded.
            expectStatus(try await alice.send("POST", "/v1/groups/oncall/join"), 200)
            let texts = try await alice.history("group:oncall").messages.map(\.text)
            #expect(texts.contains("⚠️ alice in user:alice: URGENT the vpn is down"))
        }
    }
}
