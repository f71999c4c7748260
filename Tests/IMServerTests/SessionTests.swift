import Foundation
import IMProtocol
import Lifecycle
import TestSupport
import Testing

@testable import IMServer

/// The caller's logins (issue 8, item 8).
@Suite struct SessionTests {
    @Test func loginsAreListedWithWhenTheyWereLastUsedWhichIsRecordedOnceAMinute() async throws {
        let time = ManualTime()
        try await withServer(time: time) { server in
            let (alice, user) = try await server.client.register("alice")
            time.advance(by: .seconds(5))
            expectStatus(try await alice.get("/v1/me"), 200)
            let used = Timestamp(milliseconds: time.wallMilliseconds)
            let listed = try await alice.get("/v1/me/sessions").decode(SessionList.self).sessions
            #expect(listed.count == 1)
            #expect(listed.first?.current == true)
            #expect(listed.first?.lastUsedAt == used)

            // Nothing is written per request: the server records the use once a minute.
            #expect(try await server.app.store.storage.liveTokens(of: user.id, at: used).first?.lastUsedAt == nil)
            await time.waitForSleeper(sleeping: IMServerApp.maintenancePeriod)
            time.advance(by: .seconds(61))
            try await eventually("the use recorded") {
                try await server.app.store.storage.liveTokens(of: user.id, at: used).first?.lastUsedAt != nil
            }
        }
    }

    @Test func anotherAccountsLoginCannotBeEnded() async throws {
        try await withServer { server in
            let (alice, _) = try await server.client.register("alice")
            let (bob, _) = try await server.client.register("bob")
            let bobs = try await bob.get("/v1/me/sessions").decode(SessionList.self).sessions
            let id = try #require(bobs.first?.id)
            expectError(try await alice.send("DELETE", "/v1/me/sessions/\(id)"), .notFound)
            expectError(try await alice.send("DELETE", "/v1/me/sessions/not-a-number"), .notFound)
            expectStatus(try await bob.get("/v1/me"), 200)
        }
    }
}
