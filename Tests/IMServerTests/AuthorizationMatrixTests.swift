import Foundation
import IMProtocol
import TestSupport
import Testing

/// Who may read and write where: every conversation endpoint against every kind of
/// caller, one named case per cell.
///
/// The world, built once for the suite: a direct conversation between alice and bob;
/// an open group owned by alice that bob joined and dave joined and left; an invite-only
/// group of alice's that bob and dave were invited to and joined, and dave left; a room
/// alice made that bob entered and dave entered and left. Carol belongs to none of them.
@Suite(MatrixWorld()) struct AuthorizationMatrixTests {
    enum Actor: String, Sendable, CaseIterable {
        case anonymous, alice, bob, carol, dave
    }

    enum Target: String, Sendable {
        case direct = "alice↔bob by id"
        case group = "open group by name"
        case groupByID = "open group by id"
        case privateGroup = "invite-only group by name"
        case room = "room by name"
        case roomByID = "room by id"

        var isNamed: Bool { self == .group || self == .room || self == .privateGroup }
    }

    enum Endpoint: String, Sendable, CaseIterable {
        case conversation = "GET /v1/conversations/<c>"
        case history = "GET /v1/conversations/<c>/messages"
        case send = "POST /v1/conversations/<c>/messages"
        case read = "POST /v1/conversations/<c>/read"
        case members = "GET /v1/<kind>s/<name>/members"
        case patch = "PATCH /v1/<kind>s/<name>"
    }

    struct Cell: Sendable, CustomTestStringConvertible {
        var actor: Actor
        var target: Target
        var endpoint: Endpoint
        var expected: Int
        var testDescription: String { "\(actor) \(endpoint.rawValue) on \(target.rawValue) → \(expected)" }
    }

    /// What each caller gets: members and participants are served, outsiders learn
    /// nothing from ids or of an invite-only group (404) and are told to join an open
    /// group or enter a room by name (403). A group's info is its owner's and admins' to
    /// change (alice owns both groups; bob is a member): the group powers by role are
    /// `GroupPowersMatrixTests`.
    static func expected(_ actor: Actor, _ target: Target, _ endpoint: Endpoint) -> Int {
        if actor == .anonymous { return 401 }
        // alice and bob are in every conversation of the world; carol and dave in none.
        if actor == .bob, endpoint == .patch, target == .group || target == .privateGroup { return 403 }
        if actor == .alice || actor == .bob { return endpoint == .send ? 201 : 200 }
        return target.isNamed && target != .privateGroup ? 403 : 404
    }

    static let cells: [Cell] = {
        var cells: [Cell] = []
        let targets: [Target] = [.direct, .group, .groupByID, .privateGroup, .room, .roomByID]
        for target in targets {
            for endpoint in Endpoint.allCases where target.isNamed || (endpoint != .members && endpoint != .patch) {
                for actor in Actor.allCases where target != .direct || actor != .dave {
                    cells.append(Cell(actor: actor, target: target, endpoint: endpoint, expected: expected(actor, target, endpoint)))
                }
            }
        }
        return cells
    }()

    let world: MatrixWorld.World
    init() throws {
        guard let world = MatrixWorld.current else { throw TestFailure("no matrix world") }
        self.world = world
    }

    @Test(arguments: cells)
    func access(_ cell: Cell) async throws {
        let client = world.client(cell.actor)
        let address = world.address(cell.target)
        let marker = "cell \(UUID().uuidString)"
        let answer: TestClient.Answer
        switch cell.endpoint {
        case .conversation:
            answer = try await client.get("/v1/conversations/\(address)")
        case .history:
            answer = try await client.get("/v1/conversations/\(address)/messages")
        case .send:
            answer = try await client.send(
                "POST", "/v1/conversations/\(address)/messages", json: SendMessageRequest(text: marker))
        case .read:
            answer = try await client.send("POST", "/v1/conversations/\(address)/read", json: ReadMarker(seq: 1))
        case .members:
            answer = try await client.get("/v1/\(world.kind(cell.target).rawValue)s/\(world.name(cell.target))/members")
        case .patch:
            answer = try await client.send(
                "PATCH", "/v1/\(world.kind(cell.target).rawValue)s/\(world.name(cell.target))",
                json: ConversationInfoUpdate(description: marker))
        }

        switch cell.expected {
        case 200, 201:
            expectStatus(answer, cell.expected)
            try checkServed(cell, answer)
        case 401: expectError(answer, .unauthorized)
        case 403 where cell.actor == .bob: expectError(answer, .forbidden, reason: "not_group_admin")
        case 403: expectError(answer, .forbidden, reason: cell.target == .group ? "not_member" : "not_present")
        default: expectError(answer, .notFound)
        }

        // Whatever the answer, a refused write left nothing behind.
        if cell.expected >= 400 {
            let owner = world.alice
            if cell.endpoint == .send {
                let texts = try await owner.history(world.address(cell.target), limit: 200).messages.map(\.text)
                #expect(!texts.contains(marker))
            }
            if cell.endpoint == .patch {
                let info = try await owner.get("/v1/\(world.kind(cell.target).rawValue)s/\(world.name(cell.target))")
                #expect(try info.decode(ConversationInfo.self).description != marker)
            }
        }
    }

    /// The content of an allowed answer is the conversation asked for.
    private func checkServed(_ cell: Cell, _ answer: TestClient.Answer) throws {
        let id = world.id(cell.target)
        switch cell.endpoint {
        case .conversation: #expect(try answer.decode(Conversation.self).id == id)
        case .history:
            let messages = try answer.decode(MessagePage.self).messages
            #expect(messages.allSatisfy { $0.conversationID == id })
            #expect(messages.contains { $0.text == MatrixWorld.seedText })
        case .send: #expect(try answer.decode(Message.self).conversationID == id)
        case .read: #expect(try answer.decode(ReadMarker.self).seq >= 1)
        case .members:
            let members = try answer.decode(MemberList.self).members.map(\.user.username)
            #expect(Set(members) == [world.aliceUser.username, world.bobUser.username])
        case .patch: #expect(try answer.decode(ConversationInfo.self).id == id)
        }
    }

    @Test func carolsUserBobIsHerOwnConversationWithBob() async throws {
        let carol = world.carol
        let before = try await carol.history("user:\(world.bobUser.username)")
        #expect(!before.messages.contains { $0.conversationID == world.directID })
        let sent = try await carol.message("user:\(world.bobUser.username)", "carol to bob \(UUID().uuidString)")
        #expect(sent.conversationID != world.directID)
        let aliceView = try await world.alice.history("user:\(world.bobUser.username)", limit: 200).messages
        #expect(!aliceView.contains { $0.id == sent.id })
        let bobView = try await world.bob.history("user:\(world.carolUser.username)").messages
        #expect(bobView.contains { $0.id == sent.id })
    }

    @Test func carolCannotReachTheDirectConversationThroughHerOwnAddresses() async throws {
        // user:alice from carol is carol↔alice, a different conversation.
        let history = try await world.carol.history("user:\(world.aliceUser.username)").messages
        #expect(history.allSatisfy { $0.conversationID != world.directID })
        #expect(!(try await world.carol.conversations()).contains { $0.id == world.directID })
    }
}
