import HTTPServer
import IMProtocol
import IMStore

/// Moderation in groups: `POST /v1/groups/<name>/moderation` and the bans in force.
///
/// Who may act on whom is decided by the store inside the act's transaction
/// (`GroupRules`): members moderate nobody, admins moderate members, the owner everyone,
/// server administrators any group. An invite-only group stays invisible to outsiders
/// here as everywhere (404); in an open or approval group they are refused (403).
enum ModerationRoutes {
    static let routes: [Route] = [
        Route(.post, "/v1/groups/:name/moderation", access: .user, handler: moderate),
        Route(.get, "/v1/groups/:name/bans", access: .user, handler: bans),
    ]

    static func moderate(_ context: RequestContext) async throws -> Response {
        let core = context.core
        let session = try context.caller
        let record = try await GroupRoutes.named(context, .group, visibleTo: .membersAndAdministrators)
        let body = try context.decode(ModerationRequest.self)
        let target = try await UserRoutes.existingUser(context, try body.validate())
        // A server administrator takes a group over by handing it to themselves.
        if target.id == session.userID, !(body.action == .transfer && session.isAdmin) {
            throw APIError.invalid("user", "you cannot \(body.action.rawValue) yourself")
        }
        let act = ModerationAct(
            conversationID: record.id, by: session.acting,
            action: body.action, target: target.id,
            until: body.duration.map { core.now().adding(seconds: $0.seconds) }, reason: body.reason,
            notice: GroupNotices.moderation(
                body.action, by: session.username, target: target.user.username, duration: body.duration,
                reason: body.reason))
        let outcome: ModerationOutcome
        do {
            outcome = try await core.store.moderate(act)
        } catch {
            throw ErrorMapping.rethrow(error, about: .init(field: "user"))
        }
        let result = ModerationResult(
            group: record.name, action: body.action, user: target.user.username, changed: outcome.changed,
            role: outcome.role, until: outcome.until)
        return try .json(result, encoder: core.encoder)
    }

    /// The bans in force, for the group's owner and admins and server administrators.
    static func bans(_ context: RequestContext) async throws -> Response {
        let record = try await GroupRoutes.named(context, .group, visibleTo: .membersAndAdministrators)
        try await requireAdmin(record, context, to: "see the group's bans")
        let bans = try await context.core.store.bans(record.id).map {
            GroupBan(user: $0.user, by: $0.bannedBy, reason: $0.reason, until: $0.until, createdAt: $0.createdAt)
        }
        return try .json(GroupBanList(bans: bans), encoder: context.core.encoder)
    }

    /// Throws 403 `not_group_admin` unless the caller is the group's owner or an admin, or
    /// a server administrator.
    static func requireAdmin(_ record: ConversationRecord, _ context: RequestContext, to doWhat: String) async throws {
        try GroupRules.require(.admin, actor: try await GroupRoutes.standing(record, context), to: doWhat)
    }
}
