@testable import IMBots
import IMClient
import IMProtocol
import Lifecycle
import Synchronization
import Testing

/// The runner's cache of group roles (`from: {role: …}`, `member: {role: …}`): read once,
/// and read again after an event that changes who holds which role.
@Suite struct SenderDirectoryTests {
    /// A server whose group:team has dave as `role` (changed by the test), counting the
    /// member lists it serves.
    final class Team: Sendable {
        let role = Mutex(MemberRole.member)
        let reads = Mutex(0)

        var transport: FakeTransport {
            FakeTransport { [self] request in
                guard request.url.contains("/v1/groups/team/members") else { return TransportResponse(status: 404) }
                reads.withLock { $0 += 1 }
                let dave = User(id: UserID(rawValue: 5), username: "dave", nickname: "Dave",
                                createdAt: Timestamp(milliseconds: 0))
                let list = MemberList(members: [Member(user: dave, role: role.withLock { $0 },
                                                       joinedAt: Timestamp(milliseconds: 0))])
                return TransportResponse(status: 200, headers: [("Content-Type", "application/json")],
                                         body: try WireJSON.encoder().encode(list))
            }
        }
    }

    static func event(_ type: EventType) -> Event {
        Event(position: 1, type: type, at: Timestamp(milliseconds: 0),
              conversation: ConversationRef(id: ConversationID(rawValue: 3), kind: .group, address: .group("team")),
              user: User(id: UserID(rawValue: 5), username: "dave", nickname: "Dave", createdAt: Timestamp(milliseconds: 0)))
    }

    @Test(arguments: [EventType.roleChanged, .memberBanned, .memberKicked, .memberJoined])
    func aMembershipOrRoleChangeReadsTheRolesAgain(_ type: EventType) async throws {
        let team = Team()
        let client = IMClient(serverURL: "http://127.0.0.1:1", transport: team.transport, token: "sbt_test")
        let directory = SenderDirectory(client: client, time: ManualTime(), bot: "b") { _ in }
        let message = Self.event(.message)
        #expect(await directory.role(of: "dave", in: message) == .member)
        team.role.withLock { $0 = .admin }
        // Kept: nothing said the roles changed.
        #expect(await directory.role(of: "dave", in: message) == .member)
        #expect(team.reads.withLock { $0 } == 1)

        let change = Self.event(type)
        #expect(SenderDirectory.observes(change))
        await directory.observe(change)
        #expect(await directory.role(of: "dave", in: message) == .admin)
        #expect(team.reads.withLock { $0 } == 2)
    }
}
