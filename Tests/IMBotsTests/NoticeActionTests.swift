import Foundation
@testable import IMBots
import IMProtocol
import Lifecycle
import TestSupport
import Testing

extension ServerSuites {
    /// The `notice` action against a real server: a reply only the sender sees, sent once
    /// by the outbox with the action's client id, and nothing from a dry rule.
    @Suite(.timeLimit(.minutes(3))) struct NoticeActionTests {
        @Test func aNoticeReachesOnlyItsSenderAndADryOneNobody() async throws {
            try await withTeamKeeper(rules: """
                  - name: trial
                    mode: dry
                    when: { group: team, text: { starts_with: "!trial" } }
                    do: [ { notice: "never shown" } ]
                  - name: rules
                    when: { group: team, text: { starts_with: "!rules" } }
                    do: [ { notice: { text: "{{sender.username}}: be kind", quote: true } } ]
                """) { _, alice, bob in
                let aliceStart = try await alice.cursorNow()
                let bobStart = try await bob.cursorNow()
                for text in ["!trial", "!rules please"] { try await bob.say(text, inGroup: "team") }
                let notices = try await bob.notices(count: 1, after: bobStart)
                #expect(notices.map(\.text) == ["bob: be kind"])
                #expect(notices.first?.sender == "keeper")
                #expect(notices.first?.replyTo != nil, "quote: true answers bob's message")
                // Alice saw both of bob's messages and no notice; nobody's history holds it.
                let alices = try await alice.get("/v1/events?cursor=\(aliceStart)&timeout=0").decode(EventBatch.self)
                #expect(!alices.events.contains { $0.type == .notice })
                let history = try await alice.get("/v1/conversations/group:team/messages?limit=50")
                    .decode(MessagePage.self).messages
                #expect(!history.contains { $0.sender == "keeper" && $0.type != .system })
            }
        }
    }
}

extension TestClient {
    /// The notices arriving in this account's feed until `count` have arrived.
    func notices(count: Int, after start: String, hangGuard: Duration = .seconds(60)) async throws -> [Notice] {
        var cursor = start
        var found: [Notice] = []
        let giveUp = ContinuousClock.now + hangGuard
        while found.count < count {
            guard ContinuousClock.now < giveUp else { throw HangError(what: "only \(found.count) of \(count) notices") }
            let batch = try await get("/v1/events?cursor=\(cursor)&timeout=5").decode(EventBatch.self)
            cursor = batch.cursor
            found += batch.events.compactMap(\.notice)
        }
        return found
    }
}
