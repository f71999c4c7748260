import Foundation
import IMProtocol
import TestSupport
import Testing

/// Issue 11's authorization matrix: every group act × who does it (owner, admin, member,
/// non-member, banned, anonymous, and a server administrator who is no member) × the
/// group's policy (open, approval, invite), one named case per cell, each on a fresh
/// group (`GroupPowersWorld`), on each store. A refused act leaves the group exactly as it was.
///
/// The cells run one at a time: each makes a group and about twenty requests, and
/// hundreds of them at once starved the other suites' requests of a loaded machine.
@Suite(GroupPowersWorld(), .serialized) struct GroupPowersMatrixTests {
    enum Actor: String, CaseIterable, Sendable {
        case owner, admin, member, nonMember = "non-member", banned, anonymous
        case serverAdministrator = "server administrator"

        var account: GroupPowersWorld.Account? {
            switch self {
            case .owner: .owner
            case .admin: .admin
            case .member: .member
            case .nonMember: .outsider
            case .banned: .banned
            case .anonymous: nil
            case .serverAdministrator: .serverAdministrator
            }
        }
    }

    enum Act: String, CaseIterable, Sendable {
        case mute, unmute, kick, ban, unban, promote, demote, transfer
        case invite, listInvites = "list invites", listRequests = "list requests", listBans = "list bans"
        case approve, changeInfo = "change info", changeSettings = "change settings", join
        case send, history, members, info
        case deleteOthersMessage = "delete a member's message", editOthersMessage = "edit a member's message"

        var moderation: ModerationAction? { ModerationAction(rawValue: rawValue) }

        /// Whom a moderation act is aimed at.
        var target: GroupPowersWorld.Account {
            switch self {
            case .unban: .bannedTarget
            case .demote: .adminTarget
            default: .target
            }
        }
    }

    /// An answer: its status and, for refusals, the reason.
    struct Outcome: Sendable, Equatable, CustomStringConvertible {
        var status: Int
        var reason: String?
        var description: String { reason.map { "\(status) \($0)" } ?? "\(status)" }

        static func ok(_ status: Int = 200) -> Outcome { Outcome(status: status) }
        static func forbidden(_ reason: String) -> Outcome { Outcome(status: 403, reason: reason) }
        static let notFound = Outcome(status: 404)
        static let unauthorized = Outcome(status: 401)
    }

    struct Cell: Sendable, CustomTestStringConvertible {
        var actor: Actor
        var act: Act
        var policy: JoinPolicy
        var expected: Outcome
        var testDescription: String { "\(actor.rawValue) \(act.rawValue) in a group with join: \(policy) → \(expected)" }
    }

    /// The rules, written out: what each caller gets for each act in each kind of group.
    static func expected(_ actor: Actor, _ act: Act, _ policy: JoinPolicy) -> Outcome {
        if actor == .anonymous { return .unauthorized }
        let outsider = actor == .nonMember || actor == .banned
        // An invite-only group is not there for those outside it.
        if outsider, policy == .invite { return .notFound }
        let ownerPower = act.moderation?.requiredRole == .owner
        let adminPower = act.moderation != nil && !ownerPower
            || [.invite, .listInvites, .listRequests, .listBans, .approve].contains(act)
        switch actor {
        case .owner, .serverAdministrator:
            let member = actor == .owner
            switch act {
            case .invite: return .ok(201)
            case .approve: return policy == .approval ? .ok() : .notFound
            case .join where !member: return policy == .open ? .ok() : policy == .approval ? .ok(202) : .notFound
            case .send where !member, .history where !member, .editOthersMessage where !member:
                return policy == .invite ? .notFound : .forbidden("not_member")
            case .send: return .ok(201)
            case .editOthersMessage: return .forbidden("not_sender")
            default: return .ok()
            }
        case .admin:
            if ownerPower { return .forbidden("not_group_owner") }
            switch act {
            case .invite: return .ok(201)
            case .approve: return policy == .approval ? .ok() : .notFound
            case .send: return .ok(201)
            case .editOthersMessage: return .forbidden("not_sender")
            default: return .ok()
            }
        case .member:
            if ownerPower { return .forbidden("not_group_owner") }
            if adminPower || act == .changeInfo || act == .changeSettings { return .forbidden("not_group_admin") }
            switch act {
            case .send: return .ok(201)
            case .deleteOthersMessage, .editOthersMessage: return .forbidden("not_sender")
            default: return .ok()
            }
        case .nonMember, .banned:
            if ownerPower { return .forbidden("not_group_owner") }
            if adminPower { return .forbidden("not_group_admin") }
            switch act {
            case .info: return .ok()
            case .join where actor == .banned: return .forbidden("banned")
            case .join: return policy == .open ? .ok() : .ok(202)
            // Told they are banned, as joining says, where the group is not invite-only.
            case .send, .history, .deleteOthersMessage, .editOthersMessage:
                return actor == .banned && policy != .invite ? .forbidden("banned") : .forbidden("not_member")
            default: return .forbidden("not_member")
            }
        case .anonymous:
            return .unauthorized
        }
    }

    static let cells: [Cell] = JoinPolicy.allCases.flatMap { policy in
        Act.allCases.flatMap { act in
            Actor.allCases.map { actor in Cell(actor: actor, act: act, policy: policy, expected: expected(actor, act, policy)) }
        }
    }

    @Test(arguments: TestStore.allCases, cells)
    func groupPowers(_ store: TestStore, _ cell: Cell) async throws {
        guard let world = GroupPowersWorld.current[store] else { throw TestFailure("no group powers world on \(store)") }
        let (group, message) = try await world.group(cell.policy)
        // Unmuting someone who is not muted changes nothing: the target is muted first.
        if cell.act == .unmute {
            let muted = try await world.client(.owner).send(
                "POST", "/v1/groups/\(group)/moderation", json: ModerationRequest(action: .mute, user: world.name(.target)))
            expectStatus(muted, 200)
        }
        let before = try await world.state(of: group, message: message)
        let client = cell.actor.account.map(world.client) ?? world.server.client
        let answer = try await perform(cell.act, in: group, message: message, as: client, world)
        #expect(answer.status == cell.expected.status, "body: \(answer.text)")
        if let reason = cell.expected.reason {
            #expect(answer.error?.reason == reason, "body: \(answer.text)")
        }
        if cell.expected.status >= 400 {
            #expect(answer.error != nil, "an error envelope: \(answer.text)")
            #expect(try await world.state(of: group, message: message) == before)
        } else if cell.act.moderation != nil || [.changeInfo, .changeSettings, .deleteOthersMessage].contains(cell.act) {
            #expect(try await world.state(of: group, message: message) != before, "a successful act changes the group")
        }
    }

    private func perform(
        _ act: Act, in group: String, message: Message, as client: TestClient, _ world: GroupPowersWorld.World
    ) async throws -> TestClient.Answer {
        let base = "/v1/groups/\(group)"
        let conversation = "/v1/conversations/group:\(group)"
        switch act {
        case .mute, .unmute, .kick, .ban, .unban, .promote, .demote, .transfer:
            let action = try #require(act.moderation)
            return try await client.send(
                "POST", "\(base)/moderation", json: ModerationRequest(action: action, user: world.name(act.target)))
        case .invite:
            return try await client.send("POST", "\(base)/invites", json: GroupInviteRequest(user: world.name(.invitee)))
        case .listInvites: return try await client.get("\(base)/invites")
        case .listRequests: return try await client.get("\(base)/requests")
        case .listBans: return try await client.get("\(base)/bans")
        case .approve: return try await client.send("POST", "\(base)/requests/\(world.name(.asker))/approve")
        case .changeInfo: return try await client.send("PATCH", base, json: ConversationInfoUpdate(title: "Renamed"))
        case .changeSettings:
            return try await client.send("PATCH", base, json: ConversationInfoUpdate(slowMode: ConfigDuration(seconds: 30)))
        case .join: return try await client.send("POST", "\(base)/join")
        case .send: return try await client.send("POST", "\(conversation)/messages", json: SendMessageRequest(text: "hello"))
        case .history: return try await client.get("\(conversation)/messages")
        case .members: return try await client.get("\(base)/members")
        case .info: return try await client.get(base)
        case .deleteOthersMessage: return try await client.send("DELETE", "\(conversation)/messages/\(message.id)")
        case .editOthersMessage:
            return try await client.send(
                "PATCH", "\(conversation)/messages/\(message.id)", json: EditMessageRequest(text: "someone else's words"))
        }
    }
}
