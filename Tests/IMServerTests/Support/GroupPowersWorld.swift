import Foundation
import IMProtocol
import TestSupport
import Testing

/// The accounts of the group powers matrix, made once for the suite on each store, and a
/// fresh group for each cell: every cell acts on a group of its own, so a kick or a transfer in one
/// never changes another.
struct GroupPowersWorld: SuiteTrait, TestScoping {
    /// Who stands where in each cell's group.
    enum Account: String, CaseIterable, Sendable {
        /// The group's owner, and the accounts that act in the matrix besides it.
        case owner, admin, member, outsider, banned, serverAdministrator
        /// Acted on: a member, an admin, a banned account, someone asking to join, someone
        /// invited by the cell.
        case target, adminTarget, bannedTarget, asker, invitee
    }

    struct World: Sendable {
        var server: TestServer
        var clients: [Account: TestClient]
        var users: [Account: User]

        func client(_ account: Account) -> TestClient { clients[account] ?? server.client }
        func name(_ account: Account) -> String { users[account]?.username ?? account.rawValue }

        /// A group with every standing in place, and a message of the target's (a member
        /// other than those who act).
        func group(_ policy: JoinPolicy) async throws -> (name: String, message: Message) {
            let name = Names.unique("powers")
            let owner = client(.owner)
            expectStatus(try await owner.send("POST", "/v1/groups", json: CreateConversationRequest(name: name, join: policy)), 201)
            for account in [Account.admin, .member, .target, .adminTarget] {
                try await owner.invite(self.name(account), to: name)
                try await client(account).join(.group, name)
            }
            for (action, account) in [
                (ModerationAction.promote, Account.admin), (.promote, .adminTarget), (.ban, .banned), (.ban, .bannedTarget),
            ] {
                let answer = try await owner.send(
                    "POST", "/v1/groups/\(name)/moderation", json: ModerationRequest(action: action, user: self.name(account)))
                guard answer.status == 200 else { throw TestFailure("set-up \(action): \(answer.text)") }
            }
            if policy == .approval {
                expectStatus(try await client(.asker).send("POST", "/v1/groups/\(name)/join"), 202)
            }
            return (name, try await client(.target).message("group:\(name)", "the target's own words"))
        }

        /// What the owner sees of a group: members and their standing, info, bans,
        /// invitations, requests and the member's message. A refused act changes none of it.
        func state(of name: String, message: Message) async throws -> [String] {
            let owner = client(.owner)
            let members = try await owner.get("/v1/groups/\(name)/members").decode(MemberList.self).members
            let info = try await owner.get("/v1/groups/\(name)").decode(ConversationInfo.self)
            let bans = try await owner.get("/v1/groups/\(name)/bans").decode(GroupBanList.self).bans
            let invites = try await owner.get("/v1/groups/\(name)/invites").decode(GroupInviteList.self).invites
            let requests = try await owner.get("/v1/groups/\(name)/requests").decode(GroupJoinRequestList.self).requests
            let text = try await owner.history("group:\(name)", limit: 200).messages.first { $0.id == message.id }?.text
            return members.map { "\($0.user.username) \($0.role) muted:\($0.muted ?? false)" }
                + ["title \(info.title)", "slow \(info.slowMode?.description ?? "off")", "text \(text ?? "none")"]
                + bans.map { "banned \($0.user.username)" } + invites.map { "invited \($0.user)" }
                + requests.map { "asks \($0.user)" }
        }
    }

    /// The suite's worlds, one per store.
    @TaskLocal static var current: [TestStore: World] = [:]

    var isRecursive: Bool { false }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withServer(store: .sqlite) { sqlite in
            try await withServer(store: .postgres) { postgres in
                let worlds = [TestStore.sqlite: try await Self.world(on: sqlite), .postgres: try await Self.world(on: postgres)]
                try await Self.$current.withValue(worlds) { try await function() }
            }
        }
    }

    /// Every account of the matrix, made on `server`.
    private static func world(on server: TestServer) async throws -> World {
        var clients: [Account: TestClient] = [:]
        var users: [Account: User] = [:]
        for account in Account.allCases {
            let (client, user) =
                account == .serverAdministrator
                ? try await server.createAccount(Names.unique("root"), admin: true)
                : try await server.client.newUser(String(account.rawValue.prefix(10)).lowercased())
            clients[account] = client
            users[account] = user
        }
        return World(server: server, clients: clients, users: users)
    }
}
