import HTTPServer
import IMProtocol
import IMStore

/// Who gets into a group besides by an open door: invitations (owner and admins invite;
/// the invited join, or decline) and join requests to `approval` groups (anyone asks by
/// joining; admins approve or deny; the one asking may withdraw). Pending ones are
/// listed for the group's admins and for the account they are about, so a client that
/// starts from the present still sees them.
///
/// The store checks who may, inside the act's transaction; an invite-only group stays
/// invisible (404) to outsiders here as everywhere.
enum AdmissionRoutes {
    static let routes: [Route] = [
        Route(.post, "/v1/groups/:name/invites", access: .user, handler: invite),
        Route(.get, "/v1/groups/:name/invites", access: .user, handler: invites),
        Route(.delete, "/v1/groups/:name/invites/:user", access: .user, handler: revokeInvite),
        Route(.get, "/v1/groups/:name/requests", access: .user, handler: requests),
        Route(.post, "/v1/groups/:name/requests/:user/approve", access: .user, handler: approve),
        Route(.delete, "/v1/groups/:name/requests/:user", access: .user, handler: revokeRequest),
        Route(.get, "/v1/me/invites", access: .user, handler: myInvites),
        Route(.get, "/v1/me/requests", access: .user, handler: myRequests),
    ]

    /// 201 with the new invitation, 200 when it was there already.
    static func invite(_ context: RequestContext) async throws -> Response {
        let core = context.core
        let session = try context.caller
        let record = try await GroupRoutes.named(context, .group, visibleTo: .membersAndAdministrators)
        // Before looking at whom: a member learns nothing by trying (the store checks again).
        try await ModerationRoutes.requireAdmin(record, context, to: "invite people")
        let body = try context.decode(GroupInviteRequest.self)
        let invitee = try await UserRoutes.existingUser(
            context, try Validate.name(body.user, field: "user", length: Limits.usernameLength))
        if let expected = body.userID, expected != invitee.id {
            throw APIError(.notFound, "\(invitee.user.username) is not account \(expected) any more", field: "user_id")
        }
        let created: Bool
        do {
            created = try await core.store.invite(
                invitee.id, to: record.id, by: session.acting,
                notice: "\(session.username) invited \(invitee.user.username)")
        } catch StoreError.conflict(let message) {
            throw APIError(.conflict, message, field: "user")
        }
        try await TelegramInvitations.acceptIfTelegramBot(invitee.user, to: record, core: core)
        let invitation =
            try await core.store.invitations(for: invitee.id).first { $0.group == record.name }
            ?? GroupInvite(group: record.name, user: invitee.user.username, invitedBy: session.username, createdAt: core.now())
        return try .json(invitation, status: created ? 201 : 200, encoder: core.encoder)
    }

    static func invites(_ context: RequestContext) async throws -> Response {
        let record = try await GroupRoutes.named(context, .group, visibleTo: .membersAndAdministrators)
        try await ModerationRoutes.requireAdmin(record, context, to: "see the group's invitations")
        let invites = try await context.core.store.invitations(to: record.id)
        return try .json(GroupInviteList(invites: invites), encoder: context.core.encoder)
    }

    /// An admin withdraws an invitation; the invited declines it.
    static func revokeInvite(_ context: RequestContext) async throws -> Response {
        let core = context.core
        let session = try context.caller
        let record = try await GroupRoutes.named(context, .group, visibleTo: .membersInvitedAndAdministrators)
        let user = try await UserRoutes.existingUser(context, try context.parameter("user"))
        let name = user.user.username
        let notice =
            user.id == session.userID
            ? "\(name) declined the invitation" : "\(session.username) withdrew the invitation of \(name)"
        guard try await core.store.revokeInvitation(of: user.id, to: record.id, by: session.acting, notice: notice) else {
            throw APIError(.notFound, "'\(name)' holds no invitation to group '\(record.name)'")
        }
        return .noContent
    }

    static func requests(_ context: RequestContext) async throws -> Response {
        let record = try await GroupRoutes.named(context, .group, visibleTo: .membersAndAdministrators)
        try await ModerationRoutes.requireAdmin(record, context, to: "see the group's join requests")
        let requests = try await context.core.store.joinRequests(to: record.id)
        return try .json(GroupJoinRequestList(requests: requests), encoder: context.core.encoder)
    }

    /// Lets someone who asked in; answers the new member.
    static func approve(_ context: RequestContext) async throws -> Response {
        let core = context.core
        let session = try context.caller
        let record = try await GroupRoutes.named(context, .group, visibleTo: .membersAndAdministrators)
        let user = try await UserRoutes.existingUser(context, try context.parameter("user"))
        let name = user.user.username
        guard try await core.store.approveJoinRequest(
            of: user.id, to: record.id, by: session.acting,
            notice: "\(name) joined the group (approved by \(session.username))")
        else { throw APIError(.notFound, "'\(name)' has not asked to join group '\(record.name)'") }
        guard let member = try await core.store.members(record.id).first(where: { $0.user.id == user.id }) else {
            throw APIError(.notFound, "'\(name)' is not a member of group '\(record.name)' any more")
        }
        return try .json(member, encoder: core.encoder)
    }

    /// An admin denies a request; the one asking withdraws it.
    static func revokeRequest(_ context: RequestContext) async throws -> Response {
        let session = try context.caller
        let record = try await GroupRoutes.named(context, .group, visibleTo: .membersInvitedAndAdministrators)
        let user = try await UserRoutes.existingUser(context, try context.parameter("user"))
        guard try await context.core.store.revokeJoinRequest(of: user.id, to: record.id, by: session.acting) else {
            throw APIError(.notFound, "'\(user.user.username)' has not asked to join group '\(record.name)'")
        }
        return .noContent
    }

    static func myInvites(_ context: RequestContext) async throws -> Response {
        let invites = try await context.core.store.invitations(for: try context.caller.userID)
        return try .json(GroupInviteList(invites: invites), encoder: context.core.encoder)
    }

    static func myRequests(_ context: RequestContext) async throws -> Response {
        let requests = try await context.core.store.joinRequests(for: try context.caller.userID)
        return try .json(GroupJoinRequestList(requests: requests), encoder: context.core.encoder)
    }
}
