import IMClient
import IMProtocol
import Testing
import TestSupport

/// Users, contacts, groups and rooms end to end against a real server.
@Suite("IMClient directory against a server")
struct DirectoryIntegrationTests {
    @Test func usersAreLookedUpOneByOneAndInBatches() async throws {
        try await withServer { server in
            let alice = try await registered(server, "alice")
            _ = try await registered(server, "bob")
            _ = try await registered(server, "carol")

            let bob = try await alice.user(named: "BOB")
            let batch = try await alice.users(named: ["carol", "nobody", "bob", "carol"])
            let missing = await #expect(throws: IMClientError.self) { try await alice.user(named: "nobody") }

            #expect(bob.username == "bob")
            #expect(batch.users.map(\.username) == ["carol", "bob"])
            #expect(batch.missing == ["nobody"])
            #expect(missing?.code == .api(.notFound))
        }
    }

    @Test func contactsAreAddedListedAndRemoved() async throws {
        try await withServer { server in
            let alice = try await registered(server, "alice")
            _ = try await registered(server, "bob")

            let added = try await alice.addContact("bob")
            try await alice.addContact("bob")
            let listed = try await alice.contacts()
            try await alice.removeContact("bob")
            let afterRemoval = try await alice.contacts()
            let removeAgain = await #expect(throws: IMClientError.self) { try await alice.removeContact("bob") }

            #expect(added.username == "bob")
            #expect(listed.map(\.username) == ["bob"])
            #expect(afterRemoval.isEmpty)
            #expect(removeAgain?.code == .api(.notFound))
        }
    }

    @Test func groupsAreCreatedJoinedUpdatedAndLeft() async throws {
        try await withServer { server in
            let alice = try await registered(server, "alice")
            let bob = try await registered(server, "bob")

            let created = try await alice.createGroup(name: "ops", title: "Operations", description: "on call")
            let duplicate = await #expect(throws: IMClientError.self) { try await bob.createGroup(name: "ops") }
            let uninvited = await #expect(throws: IMClientError.self) { try await bob.joinGroup("ops") }
            let invitation = try await alice.inviteToGroup("ops", user: "bob")
            let joined = try await bob.joinGroup("ops")
            let members = try await alice.groupMembers("ops")
            let memberEdit = await #expect(throws: IMClientError.self) {
                try await bob.updateGroup("ops", ConversationInfoUpdate(description: "mine now"))
            }
            let updated = try await alice.updateGroup("ops", ConversationInfoUpdate(description: "pager duty"))
            let info = try await alice.groupInfo("ops")
            let bobsGroups = try await bob.myGroups()
            try await bob.leaveGroup("ops")
            let afterLeaving = try await bob.myGroups()
            let notMember = await #expect(throws: IMClientError.self) { try await bob.groupMembers("ops") }

            #expect(created.name == "ops")
            #expect(created.title == "Operations")
            #expect(created.join == .invite)
            #expect(duplicate?.code == .api(.conflict))
            #expect(uninvited?.code == .api(.notFound))
            #expect(invitation.user == "bob" && invitation.invitedBy == "alice")
            #expect(joined.memberCount == 2)
            #expect(Dictionary(uniqueKeysWithValues: members.map { ($0.user.username, $0.role) })
                == ["alice": .owner, "bob": .member])
            #expect(memberEdit?.api?.reason == "not_group_admin")
            #expect(updated.description == "pager duty")
            #expect(info.description == "pager duty")
            #expect(bobsGroups.map(\.name) == ["ops"])
            #expect(afterLeaving.isEmpty)
            #expect(notMember?.code == .api(.notFound))
        }
    }

    @Test func roomsAreCreatedOrEnteredAndLeft() async throws {
        try await withServer { server in
            let alice = try await registered(server, "alice")
            let bob = try await registered(server, "bob")

            let created = try await alice.createRoom(name: "lobby", title: "Lobby")
            let entered = try await bob.createRoom(name: "lobby")
            let present = try await alice.roomMembers("lobby")
            let updated = try await bob.updateRoom("lobby", ConversationInfoUpdate(title: "The Lobby"))
            try await bob.leaveRoom("lobby")
            let afterLeaving = try await alice.roomInfo("lobby")
            let reentered = try await bob.enterRoom("lobby")
            let bobsRooms = try await bob.myRooms()

            #expect(created.kind == .room)
            #expect(entered.id == created.id)
            #expect(Set(present.map(\.user.username)) == ["alice", "bob"])
            #expect(updated.title == "The Lobby")
            #expect(afterLeaving.memberCount == 1)
            #expect(reentered.memberCount == 2)
            #expect(bobsRooms.map(\.name) == ["lobby"])
        }
    }
}
