import Foundation
import IMProtocol
import TestSupport
import Testing

/// Builds the matrix's world once for the suite.
struct MatrixWorld: SuiteTrait, TestScoping {
    static let seedText = "the first message"

    struct World: Sendable {
        var server: TestServer
        var alice: TestClient
        var bob: TestClient
        var carol: TestClient
        var dave: TestClient
        var aliceUser: User
        var bobUser: User
        var carolUser: User
        var directID: ConversationID
        var group: ConversationInfo
        var privateGroup: ConversationInfo
        var room: ConversationInfo

        func client(_ actor: AuthorizationMatrixTests.Actor) -> TestClient {
            switch actor {
            case .anonymous: server.client
            case .alice: alice
            case .bob: bob
            case .carol: carol
            case .dave: dave
            }
        }

        func address(_ target: AuthorizationMatrixTests.Target) -> String {
            switch target {
            case .direct: directID.description
            case .group: "group:\(group.name)"
            case .groupByID: group.id.description
            case .privateGroup: "group:\(privateGroup.name)"
            case .room: "room:\(room.name)"
            case .roomByID: room.id.description
            }
        }

        func id(_ target: AuthorizationMatrixTests.Target) -> ConversationID {
            switch target {
            case .direct: directID
            case .group, .groupByID: group.id
            case .privateGroup: privateGroup.id
            case .room, .roomByID: room.id
            }
        }

        func kind(_ target: AuthorizationMatrixTests.Target) -> ConversationKind {
            switch target {
            case .direct: .direct
            case .group, .groupByID, .privateGroup: .group
            case .room, .roomByID: .room
            }
        }

        func name(_ target: AuthorizationMatrixTests.Target) -> String {
            target == .privateGroup ? privateGroup.name : kind(target) == .group ? group.name : room.name
        }
    }

    @TaskLocal static var current: World?

    var isRecursive: Bool { false }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withServer { server in
            let (alice, aliceUser) = try await server.client.register("alice")
            let (bob, bobUser) = try await server.client.register("bob")
            let (carol, carolUser) = try await server.client.register("carol")
            let (dave, _) = try await server.client.register("dave")
            let direct = try await alice.message("user:bob", Self.seedText)
            let group = try await alice.create(.group, "staff", join: .open)
            try await bob.join(.group, "staff")
            try await dave.join(.group, "staff")
            try await dave.leave(.group, "staff")
            try await alice.message("group:staff", Self.seedText)
            let privateGroup = try await alice.create(.group, "vault")
            for (member, name) in [(bob, "bob"), (dave, "dave")] {
                try await alice.invite(name, to: "vault")
                try await member.join(.group, "vault")
            }
            try await dave.leave(.group, "vault")
            try await alice.message("group:vault", Self.seedText)
            let room = try await alice.create(.room, "lounge")
            try await bob.join(.room, "lounge")
            try await dave.join(.room, "lounge")
            try await dave.leave(.room, "lounge")
            try await alice.message("room:lounge", Self.seedText)
            let world = World(
                server: server, alice: alice, bob: bob, carol: carol, dave: dave, aliceUser: aliceUser,
                bobUser: bobUser, carolUser: carolUser, directID: direct.conversationID, group: group,
                privateGroup: privateGroup, room: room)
            try await Self.$current.withValue(world) { try await function() }
        }
    }
}
