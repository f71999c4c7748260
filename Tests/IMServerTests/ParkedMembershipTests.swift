import Foundation
import IMProtocol
import TestSupport
import Testing

/// Parked polls across membership changes: a conversation's events reach a poll only
/// while its user is a member.
@Suite struct ParkedMembershipTests {
    @Test(arguments: TestStore.allCases) func aMemberWhoLeavesWhileParkedIsToldOfTheLeavingAndGetsNothingAfter(_ store: TestStore) async throws {
        try await withServer(store: store) { server in
            let (alice, _) = try await server.client.register("alice")
            let (bob, bobUser) = try await server.client.register("bob")
            let bobsPhone = try await server.client.login("bob", device: "phone")
            _ = try await alice.create(.group, "crew", join: .open)
            _ = try await bob.join(.group, "crew")
            let cursor = try await bobsPhone.cursor()
            async let parked = bobsPhone.poll(cursor, timeout: 50)
            try await server.awaitParkedPolls(1)

            try await bob.leave(.group, "crew")
            let batch = try await parked.decode(EventBatch.self)
            #expect(batch.events.map(\.type) == [.memberLeft])
            #expect(batch.events.first?.user?.id == bobUser.id)

            // Parked again after the leaving: the group's next message is not for bob.
            async let next = bobsPhone.poll(batch.cursor, timeout: 50)
            try await server.awaitParkedPolls(1)
            _ = try await alice.message("group:crew", "bob is gone")
            let direct = try await alice.message("user:bob", "but still a friend")
            let after = try await next.decode(EventBatch.self)
            #expect(after.events.compactMap(\.message?.id) == [direct.id])
            #expect(try await bobsPhone.events(after: after.cursor).events.isEmpty)
        }
    }

    @Test(arguments: TestStore.allCases) func aParkedPollOfSomeoneJoiningGetsTheJoiningAndWhatFollowsButNothingBefore(_ store: TestStore) async throws {
        try await withServer(store: store) { server in
            let (alice, _) = try await server.client.register("alice")
            let (carol, carolUser) = try await server.client.register("carol")
            let carolsPhone = try await server.client.login("carol", device: "phone")
            _ = try await alice.create(.group, "crew", join: .open)
            let cursor = try await carolsPhone.cursor()
            _ = try await alice.message("group:crew", "before carol")
            async let parked = carolsPhone.poll(cursor, timeout: 50)
            try await server.awaitParkedPolls(1)

            _ = try await carol.join(.group, "crew")
            let joined = try await parked.decode(EventBatch.self)
            #expect(joined.events.map(\.type) == [.memberJoined])
            #expect(joined.events.first?.user?.id == carolUser.id)

            async let next = carolsPhone.poll(joined.cursor, timeout: 50)
            try await server.awaitParkedPolls(1)
            let sent = try await alice.message("group:crew", "welcome carol")
            #expect(try await next.decode(EventBatch.self).events.compactMap(\.message?.id) == [sent.id])
            // Read from the first cursor again, the feed starts at the joining.
            let all = try await carolsPhone.events(after: cursor).events
            #expect(all.compactMap(\.message?.text) == ["\(carolUser.username) joined the group", "welcome carol"])
        }
    }

    @Test(arguments: TestStore.allCases) func oneMessageWakesEveryMembersPollWithTheSameEventAndTheirOwnCursor(_ store: TestStore) async throws {
        try await withServer(store: store) { server in
            let (owner, _) = try await server.client.register("owner")
            _ = try await owner.create(.room, "hall")
            var guests: [TestClient] = []
            for index in 0..<4 {
                let (guest, _) = try await server.client.register("guest\(index)")
                _ = try await guest.join(.room, "hall")
                guests.append(guest)
            }
            var members: [(TestClient, String)] = []
            for guest in guests { members.append((guest, try await guest.cursor())) }
            let (absent, _) = try await server.client.register("absent")
            let absentCursor = try await absent.cursor()
            let crowd = members
            let answers = Task {
                try await withThrowingTaskGroup(of: EventBatch.self) { group in
                    for (member, cursor) in crowd {
                        group.addTask { try await member.poll(cursor, timeout: 50).decode(EventBatch.self) }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            }
            try await server.awaitParkedPolls(members.count)
            let sent = try await owner.message("room:hall", "to everyone present")
            let batches = try await answers.value
            #expect(batches.count == members.count)
            #expect(batches.allSatisfy { $0.events == batches[0].events })
            #expect(batches.allSatisfy { $0.events.compactMap(\.message?.id) == [sent.id] })
            // Each answer's cursor is its own user's.
            #expect(Set(batches.map(\.cursor)).count == members.count)
            for batch in batches {
                let owner = try #require(members.first { $0.1.split(separator: ".")[2] == batch.cursor.split(separator: ".")[2] })
                #expect(try await owner.0.events(after: batch.cursor).events.isEmpty)
            }
            #expect(try await absent.events(after: absentCursor).events.isEmpty)
        }
    }
}
