import Foundation
@testable import IMBots
import IMProtocol
import Lifecycle
import TestSupport
import Testing

extension ServerSuites {
    /// Bots of one runner that join the same invite-only group (the help desk and the
    /// alert bridge both join group:oncall): whichever makes it lets the other in.
    @Suite(.timeLimit(.minutes(2))) struct SharedGroupsTests {
        static func bot(_ name: String) -> String {
            """
            bot: \(name)
            account: { username: \(name), password: \(name)-password, register: true }
            join: ["group:shared", "group:only-\(name)"]
            rules:
              - { name: hello, when: { direct: true }, do: [ { reply: hi } ] }
            """
        }

        @Test func botsStartedTogetherAllEndUpInTheGroupOnlyOneOfThemMade() async throws {
            try await withBotsFolder { server, fixture, adminToken in
                for name in ["first", "second", "third"] { try fixture.write(Self.bot(name), as: "\(name).yaml") }
                try await withRunningRunner(fixture.configuration(server: server, adminToken: adminToken)) { running in
                    for name in ["first", "second", "third"] {
                        try await running.logs.line(containing: "bot \(name) is running as \(name)")
                    }
                    let first = try await server.client.login("first", password: "first-password", device: "test")
                    let members = try await first.get("/v1/groups/shared/members").decode(MemberList.self).members
                    #expect(Set(members.map(\.user.username)) == ["first", "second", "third"])
                    #expect(members.filter { $0.role == .owner }.count == 1, "one of them made it")
                    #expect(!running.logs.contains("cannot join"), "\(running.logs.lines.map(\.message))")
                }
            }
        }

        @Test func aGroupNoBotOfTheRunnerMadeIsNotWaitedFor() async throws {
            let groups = SharedGroups()
            let time = ManualTime()
            groups.note([try Bots.load(Self.bot("first"))])
            #expect(!groups.isShared("only-first", besides: "first"))
            #expect(!groups.isShared("shared", besides: "first"), "no other bot joins it")
            // Asked about a group nobody opened, a bot gives up once the patience is over.
            let asking = Task { await groups.requestInvitation(to: "shared", for: "second", time: time) }
            await time.waitForSleepers(1)
            time.advance(by: SharedGroups.patience)
            #expect(await asking.value == false)
            // Opened: the invitation goes through whoever opened it.
            groups.open("shared") { $0 == "second" }
            #expect(await groups.requestInvitation(to: "Shared", for: "second", time: time))
        }
    }
}
