import Foundation
import IMBots
import IMProtocol
import Lifecycle
import TestSupport
import Testing

extension ServerSuites {
    /// Moderators without operator steps, against a real server: a listed moderator is
    /// made an admin of the mod-log and of the moderated group, never asked the newcomer
    /// question and never restricted; one whose account appears after the bot started is
    /// set up within the minute; each is bound to its account, so a listed name that
    /// changes hands (issue 25 §4) makes nobody a moderator, not even after a restart, and a
    /// name listed with its account's id (`NAME#ID`) is that account's only.
    @Suite(.timeLimit(.minutes(3))) struct ModeratorSetupTests {
        static let bot = """
            bot: moderator
            account: { username: moderator, password: moderator-password, register: true }
            join: [ { group: lobby, policy: open, new_members: restricted } ]
            listen: ["group:lobby", "group:mods", direct]
            moderation: { log: "group:mods", moderators: [OLGA, pete, zoe, "quinn#999999"] }
            limits: { per_conversation: 1000/s, per_group: 1000/s, total: 1000/s }
            rules:
              - name: verify
                when: { event: member_joined, group: lobby }
                do: [ { verify: { text: "Answer 'purple' to post.", answer: purple, within: 10m } } ]
            """

        static func role(_ client: TestClient, _ user: String, in group: String) async throws -> MemberRole? {
            try await client.get("/v1/groups/\(group)/members").decode(MemberList.self).members
                .first { $0.user.username == user }?.role
        }

        static func invited(_ client: TestClient, to group: String) async throws -> Bool {
            try await client.get("/v1/me/invites").text.contains(#""group":"\#(group)""#)
        }

        @Test func listedModeratorsAreAdminsOfBothGroupsUnrestrictedUnaskedAndBoundToTheirAccounts() async throws {
            try await withBotsFolder { server, fixture, adminToken in
                let time = ManualTime(wallMilliseconds: SystemTime().wallMilliseconds)
                let configuration = fixture.configuration(server: server, adminToken: adminToken, time: time)
                let (olga, olgaUser) = try await server.client.register("olga")
                let (zoe, _) = try await server.client.register("zoe")
                // olga is listed with her account's id; quinn with an id that is not quinn's.
                let (quinn, _) = try await server.client.register("quinn")
                try fixture.write(Self.bot.replacingOccurrences(of: "OLGA", with: "\"olga#\(olgaUser.id.rawValue)\""),
                                  as: "moderator.yaml")
                try await withRunningRunner(configuration, services: BotRunner.standardServices) { running in
                    try await server.awaitParkedPolls(1)
                    // Invited into both groups; admin of each once a member, able to post at once.
                    try await eventually("olga is invited to the mod-log") { try await Self.invited(olga, to: "mods") }
                    for group in ["mods", "lobby"] {
                        #expect(try await olga.send("POST", "/v1/groups/\(group)/join").status == 200)
                        try await eventually("olga is an admin of group:\(group)") {
                            try await Self.role(olga, "olga", in: group) == .admin
                        }
                    }
                    let posted = try await olga.send("POST", "/v1/conversations/group:lobby/messages",
                                                     json: SendMessageRequest(text: "hello, I moderate here"))
                    #expect(posted.status == 201, "a moderator is never restricted: \(posted.text)")
                    #expect(try await olga.get("/v1/conversations/user:moderator/messages").decode(MessagePage.self)
                        .messages.filter { $0.sender == "moderator" }.isEmpty, "never asked the newcomer question")
                    #expect(running.logs.contains("moderator olga is account \(olgaUser.id.rawValue), as listed"))
                    #expect(running.logs.contains("moderator quinn is listed as account 999999; the name belongs to account"))
                    #expect(try await !Self.invited(quinn, to: "mods"), "quinn's name is not quinn's listed account")

                    // pete's account appears after the bot started: set up within the minute.
                    let (pete, _) = try await server.client.register("pete")
                    try await eventually("pete is invited to the mod-log") {
                        time.advance(by: .seconds(61))
                        return try await Self.invited(pete, to: "mods")
                    }
                    #expect(try await pete.send("POST", "/v1/groups/mods/join").status == 200)
                    try await eventually("pete is an admin of the mod-log") {
                        try await Self.role(olga, "pete", in: "mods") == .admin
                    }
                    #expect(running.logs.contains("moderator pete is account"))
                    // That set-up's pass over the groups is over (lobby comes last) before the
                    // name below changes hands.
                    try await eventually("pete is invited to the lobby") { try await Self.invited(pete, to: "lobby") }

                    // zoe's name changes hands: deleted, registered again by someone else.
                    try await eventually("zoe is bound") { running.logs.contains("moderator zoe is account") }
                    let admin = server.client.with(token: adminToken)
                    #expect(try await admin.send("DELETE", "/v1/admin/users/zoe").status == 204)
                    _ = zoe
                    let (impostor, _) = try await server.client.register("zoe")
                    #expect(try await impostor.send("POST", "/v1/groups/lobby/join").status == 200)
                    try await eventually("the new zoe gets the newcomer question") {
                        try await impostor.get("/v1/conversations/user:moderator/messages").text.contains("purple")
                    }
                    #expect(try await Self.role(olga, "zoe", in: "lobby") == .member)
                    #expect(try await !Self.invited(impostor, to: "mods"))
                }
                // A restart does not make the new zoe a moderator either.
                try await withRunningRunner(configuration, services: BotRunner.standardServices) { running in
                    try await running.logs.line(containing: "moderator zoe was bound to account")
                    let impostor = try await server.client.login("zoe")
                    #expect(try await !Self.invited(impostor, to: "mods"))
                    #expect(try await Self.role(olga, "zoe", in: "lobby") == .member)
                }
            }
        }
    }
}

/// `moderators:` entries: names, or `NAME#ID` with the account's id.
@Suite struct ModeratorListTests {
    @Test func aNameWithItsAccountsIdIsPinnedAndABadIdIsAnErrorAtItsPosition() throws {
        let header = "bot: b\naccount: { username: b, password: secret-password }\n"
        let bot = try Bots.load(header + #"moderation: { log: "group:mods", moderators: [alice, "bob#17"] }"# + "\nrules: []")
        #expect(bot.moderation.moderators == ["alice", "bob"])
        #expect(bot.moderation.accountIDs == ["bob": 17])
        let errors = Bots.errors(header + #"moderation: { log: "group:mods", moderators: [alice, "bob#x"] }"# + "\nrules: []")
        #expect(errors == [#"bot.yaml:3:54: 'bob#x': after '#' comes the account's id, a number (the "id" of GET /v1/users/bob)"#],
                "\(errors)")
    }
}
