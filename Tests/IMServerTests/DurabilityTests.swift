import Foundation
import IMProtocol
import TestSupport
import Testing

/// What a restart on the same data folder keeps: everything that was acknowledged.
@Suite struct DurabilityTests {
    @Test func aRestartKeepsAccountsTokensMessagesGroupsAndMedia() async throws {
        try await withRestartableServer { handle in
            let before = handle.server
            let (alice, aliceUser) = try await before.client.register("alice")
            let (bob, _) = try await before.client.register("bob")
            let (carol, _) = try await before.client.register("carol")
            var sent: [Message] = []
            for index in 1...5 { sent.append(try await alice.message("user:bob", "direct \(index)")) }
            try await alice.create(.group, "team", join: .open)
            try await bob.join(.group, "team")
            sent.append(try await bob.message("group:team", "in the group"))
            expectStatus(try await alice.send("PUT", "/v1/contacts/bob"), 201)
            let avatar = try await alice.send("PUT", "/v1/me/avatar", body: Data(ImageBytes.png))
            let media = try avatar.decode(AvatarUpload.self).media
            expectStatus(try await carol.send("POST", "/v1/logout"), 204)

            let after = try await handle.restart()
            let alice2 = TestClient(server: after, token: alice.token)
            let bob2 = TestClient(server: after, token: bob.token)
            let carol2 = TestClient(server: after, token: carol.token)

            // Tokens: the live ones still work, the ended one stays ended.
            #expect(try await alice2.get("/v1/me").decode(User.self).id == aliceUser.id)
            expectError(try await carol2.get("/v1/me"), .unauthorized, reason: "logged_out")
            _ = try await after.client.login("bob")

            // Every acknowledged message, in order.
            let direct = try await bob2.history("user:alice", limit: 200).messages
            #expect(direct.map(\.id) == sent.prefix(5).reversed().map(\.id))
            let group = try await alice2.history("group:team").messages
            #expect(group.first?.id == sent.last?.id)
            let members = try await alice2.get("/v1/groups/team/members").decode(MemberList.self).members
            #expect(members.map(\.user.username) == ["alice", "bob"])
            #expect(try await alice2.get("/v1/contacts").decode(UserList.self).users.map(\.username) == ["bob"])
            #expect(try await bob2.get("/v1/conversations/user:alice").decode(Conversation.self).unread == 5)

            let served = try await after.client.get(media.url)
            expectStatus(served, 200)
            #expect([UInt8](served.body) == ImageBytes.png)
        }
    }

    @Test func cursorsIssuedBeforeARestartStillWorkAndNewEventsComeAfter() async throws {
        try await withRestartableServer { handle in
            let (alice, _) = try await handle.server.client.register("alice")
            let (bob, _) = try await handle.server.client.register("bob")
            let cursor = try await bob.cursor()
            let early = try await alice.message("user:bob", "before the restart")
            let seen = try await bob.events(after: cursor)

            let after = try await handle.restart()
            let alice2 = TestClient(server: after, token: alice.token)
            let bob2 = TestClient(server: after, token: bob.token)

            // The old cursor still answers, with the same events.
            let replay = try await bob2.events(after: cursor)
            #expect(replay.events.compactMap(\.message?.id) == [early.id])
            #expect(replay.cursor == seen.cursor)

            let late = try await alice2.message("user:bob", "after the restart")
            let fresh = try await bob2.events(after: seen.cursor)
            #expect(fresh.events.compactMap(\.message?.id) == [late.id])
            let oldTop = try #require(seen.events.map(\.position).max())
            #expect(fresh.events.allSatisfy { $0.position > oldTop })
            #expect(late.seq == early.seq + 1)
        }
    }

    @Test func aParkedPollWokenAfterARestartGetsTheNewMessage() async throws {
        try await withRestartableServer { handle in
            let (alice, _) = try await handle.server.client.register("alice")
            let (bob, _) = try await handle.server.client.register("bob")
            let cursor = try await bob.cursor()
            let after = try await handle.restart()
            let bob2 = TestClient(server: after, token: bob.token)
            async let parked = bob2.poll(cursor, timeout: 50)
            try await after.awaitParkedPolls(1)
            let sent = try await TestClient(server: after, token: alice.token).message("user:bob", "hello again")
            #expect(try await parked.decode(EventBatch.self).events.compactMap(\.message?.id) == [sent.id])
        }
    }

    @Test func aResendAfterARestartStillReturnsTheFirstMessage() async throws {
        try await withRestartableServer { handle in
            let (alice, _) = try await handle.server.client.register("alice")
            _ = try await handle.server.client.register("bob")
            let first = try await alice.message("user:bob", "exactly once", clientID: "retry-1")
            let after = try await handle.restart()
            let alice2 = TestClient(server: after, token: alice.token)
            let again = try await alice2.send(
                "POST", "/v1/conversations/user:bob/messages",
                json: SendMessageRequest(text: "exactly once", clientMessageID: "retry-1"))
            expectStatus(again, 200)
            #expect(try again.decode(Message.self) == first)
            #expect(try await alice2.history("user:bob").messages.count == 1)
        }
    }

    @Test func aKickedOutLoginStaysOutAfterARestart() async throws {
        try await withRestartableServer { handle in
            _ = try await handle.server.client.register("alice")
            let old = try await handle.server.client.login("alice", device: "phone")
            _ = try await handle.server.client.login("alice", device: "phone")
            let after = try await handle.restart()
            expectError(try await TestClient(server: after, token: old.token).get("/v1/me"), .unauthorized, reason: "kicked_out")
        }
    }
}
