import Foundation
import IMProtocol
import TestSupport
import Testing

/// Racing requests that must still agree: one winner, the rest told so, nothing doubled.
@Suite(.sharedServer) struct ConcurrencyTests {
    let server: TestServer
    init() throws { server = try SharedServer.current }
    static let racers = 12

    @Test func racingResendsWithOneClientMessageIDStoreOneMessage() async throws {
        let (alice, _) = try await server.client.newUser("racer")
        let (_, bob) = try await server.client.newUser("bob")
        let path = "/v1/conversations/user:\(bob.username)/messages"
        let answers = try await withThrowingTaskGroup(of: TestClient.Answer.self) { group in
            for _ in 0..<Self.racers {
                group.addTask { try await alice.send("POST", path, json: SendMessageRequest(text: "once", clientMessageID: "race")) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.map(\.status).sorted() == [200] * (Self.racers - 1) + [201])
        let ids = Set(try answers.map { try $0.decode(Message.self).id })
        #expect(ids.count == 1)
        #expect(try await alice.history("user:\(bob.username)").messages.count == 1)
    }

    @Test func racingGroupCreationsHaveOneWinner() async throws {
        let name = Names.unique("race")
        var clients: [TestClient] = []
        for _ in 0..<Self.racers { clients.append(try await server.client.newUser("founder").client) }
        let answers = try await withThrowingTaskGroup(of: TestClient.Answer.self) { group in
            for client in clients {
                group.addTask { try await client.send("POST", "/v1/groups", json: CreateConversationRequest(name: name)) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.filter { $0.status == 201 }.count == 1)
        for answer in answers where answer.status != 201 { expectError(answer, .conflict) }
    }

    @Test func racingRoomCreationsAllEndUpPresentInOneRoom() async throws {
        let name = Names.unique("race")
        var clients: [TestClient] = []
        for _ in 0..<Self.racers { clients.append(try await server.client.newUser("entrant").client) }
        let answers = try await withThrowingTaskGroup(of: TestClient.Answer.self) { group in
            for client in clients {
                group.addTask { try await client.send("POST", "/v1/rooms", json: CreateConversationRequest(name: name)) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.map(\.status).sorted() == [200] * (Self.racers - 1) + [201])
        #expect(Set(try answers.map { try $0.decode(ConversationInfo.self).id }).count == 1)
        let info = try await clients[0].get("/v1/rooms/\(name)").decode(ConversationInfo.self)
        #expect(info.memberCount == Self.racers)
    }

    @Test func racingRegistrationsOfOneNameHaveOneWinner() async throws {
        let name = Names.unique("same")
        let client = server.client
        let answers = try await withThrowingTaskGroup(of: TestClient.Answer.self) { group in
            for _ in 0..<Self.racers {
                group.addTask {
                    try await client.send("POST", "/v1/register", json: RegisterRequest(username: name, password: "long enough"))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.filter { $0.status == 201 }.count == 1)
        for answer in answers where answer.status != 201 { expectError(answer, .conflict) }
    }

    @Test func racingJoinsCountEveryMemberOnce() async throws {
        let (owner, _) = try await server.client.newUser("owner")
        let name = Names.unique("popular")
        try await owner.create(.group, name, join: .open)
        var clients: [TestClient] = []
        for _ in 0..<Self.racers { clients.append(try await server.client.newUser("fan").client) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for client in clients {
                // Each joins twice at once: the second join must not count.
                group.addTask { _ = try await client.join(.group, name) }
                group.addTask { _ = try await client.join(.group, name) }
            }
            try await group.waitForAll()
        }
        let info = try await owner.get("/v1/groups/\(name)").decode(ConversationInfo.self)
        #expect(info.memberCount == Self.racers + 1)
        let members = try await owner.get("/v1/groups/\(name)/members").decode(MemberList.self).members
        #expect(members.count == Self.racers + 1)
        let notices = try await owner.history("group:\(name)", limit: 200).messages.filter { $0.type == .system }
        #expect(notices.count == Self.racers + 1)  // "created" plus one "joined" each
    }
}

private func * (value: [Int], count: Int) -> [Int] { Array(repeating: value, count: count).flatMap { $0 } }
