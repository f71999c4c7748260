import HTTPServer
import IMProtocol
import IMStore

/// Groups (`/v1/groups`) and rooms (`/v1/rooms`): the same operations on two kinds.
/// Groups keep members until they leave, and are invite-only unless made with `join:
/// open`; rooms hold whoever is present, and creating a room that exists simply enters it.
///
/// An invite-only group is invisible to whoever is not in it: its info, members, history
/// and sends answer 404 as for a group that does not exist. Those invited (and server
/// administrators) see its info, so they know what they are joining. Names are unique
/// server-wide, so creating a group under a taken name answers 409 whatever it is.
enum GroupRoutes {
    static let routes: [Route] = routes(kind: .group, base: "/v1/groups", join: "join")
        + routes(kind: .room, base: "/v1/rooms", join: "enter")
        + [Route(.post, "/v1/groups/:name/invites", access: .user, handler: invite)]

    private static func routes(kind: ConversationKind, base: String, join: String) -> [Route] {
        [
            Route(.get, base, access: .user) { try await mine($0, kind) },
            Route(.post, base, access: .user) { try await create($0, kind) },
            Route(.get, "\(base)/:name", access: .user) { try await info($0, kind) },
            Route(.patch, "\(base)/:name", access: .user) { try await update($0, kind) },
            Route(.post, "\(base)/:name/\(join)", access: .user) { try await enter($0, kind) },
            Route(.post, "\(base)/:name/leave", access: .user) { try await leave($0, kind) },
            Route(.get, "\(base)/:name/members", access: .user) { try await members($0, kind) },
        ]
    }

    private static func noun(_ kind: ConversationKind) -> String { kind == .group ? "group" : "room" }

    /// The group or room in the path. An invite-only group the caller may not know of is
    /// reported as absent unless `visibleTo` lets them see it.
    static func named(_ context: RequestContext, _ kind: ConversationKind, visibleTo: Visibility = .members)
        async throws -> ConversationRecord
    {
        let name = try context.parameter("name").lowercased()
        guard let record = try await context.core.store.conversation(kind: kind, name: name) else {
            throw APIError(.notFound, "no \(noun(kind)) '\(name)'")
        }
        if kind == .group, record.joinPolicy == .invite, !(try await canSee(record, context, visibleTo)) {
            throw ConversationAccess.noSuchGroup(name)
        }
        return record
    }

    /// Who, besides members, may learn that an invite-only group exists.
    enum Visibility {
        case members
        /// Members, the invited, and server administrators (the group's info).
        case membersInvitedAndAdministrators
    }

    private static func canSee(_ record: ConversationRecord, _ context: RequestContext, _ visibility: Visibility)
        async throws -> Bool
    {
        let session = try context.caller
        let store = context.core.store
        if try await store.membership(record.id, session.userID) != nil { return true }
        guard visibility == .membersInvitedAndAdministrators else { return false }
        if session.isAdmin { return true }
        return try await store.isInvited(session.userID, to: record.id)
    }

    static func mine(_ context: RequestContext, _ kind: ConversationKind) async throws -> Response {
        let session = try context.caller
        let items = try await context.core.store.conversationInfos(for: session.userID, kind: kind)
        return try .json(ConversationInfoList(items: items), encoder: context.core.encoder)
    }

    static func create(_ context: RequestContext, _ kind: ConversationKind) async throws -> Response {
        let core = context.core
        let session = try context.caller
        let body = try context.decode(CreateConversationRequest.self)
        let name = try Validate.conversationName(body.name)
        let details = ConversationInfoUpdate(title: body.title, logoURL: body.logoURL, description: body.description)
        try details.validate()
        try await MediaReference.check(body.logoURL, field: "logo_url", by: session.userID, core)
        if kind == .room, body.join != nil {
            throw APIError.invalid("join", "rooms have no join policy: anyone may enter a room")
        }
        if kind == .room, let existing = try await core.store.conversation(kind: .room, name: name) {
            return try .json(try await enterExisting(core, existing, session), encoder: core.encoder)
        }
        do {
            let record = try await core.store.createConversation(
                kind: kind, name: name, title: body.title ?? "", description: body.description ?? "",
                logoURL: body.logoURL ?? "", creator: session.userID, joinPolicy: body.join ?? .invite)
            return try .json(try await core.store.info(record), status: 201, encoder: core.encoder)
        } catch StoreError.conflict(_) where kind == .room {
            // Another request created the room first: enter it instead.
            guard let existing = try await core.store.conversation(kind: .room, name: name) else { throw StoreError.notFound(name) }
            return try .json(try await enterExisting(core, existing, session), encoder: core.encoder)
        } catch {
            throw ErrorMapping.rethrow(error, about: .init(field: "name"))
        }
    }

    /// Enters an existing room; the info is read again so it counts the caller.
    private static func enterExisting(_ core: ServerServices, _ record: ConversationRecord, _ session: Session)
        async throws -> ConversationInfo
    {
        _ = try await join(core, record, session)
        return try await core.store.info(try await core.store.conversation(id: record.id) ?? record)
    }

    private static func join(_ core: ServerServices, _ record: ConversationRecord, _ session: Session) async throws
        -> JoinOutcome
    {
        let notice = record.kind == .group ? "joined the group" : "entered the room"
        return try await core.store.join(
            record.id, session.userID,
            change: MembershipChange(event: .memberJoined, notice: "\(session.username) \(notice)"))
    }

    static func info(_ context: RequestContext, _ kind: ConversationKind) async throws -> Response {
        let record = try await named(context, kind, visibleTo: .membersInvitedAndAdministrators)
        return try .json(try await context.core.store.info(record), encoder: context.core.encoder)
    }

    static func update(_ context: RequestContext, _ kind: ConversationKind) async throws -> Response {
        let core = context.core
        let session = try context.caller
        let record = try await named(context, kind)
        guard try await core.store.membership(record.id, session.userID) != nil else {
            throw ConversationAccess.notMember(record)
        }
        let update = try context.decode(ConversationInfoUpdate.self)
        guard !update.isEmpty else {
            throw APIError(.invalidRequest, "nothing to change: give title, logo_url or description")
        }
        try update.validate()
        try await MediaReference.check(update.logoURL, field: "logo_url", by: session.userID, core)
        let updated = try await core.store.updateInfo(
            record.id, update, by: session.userID, notice: "\(session.username) changed the \(noun(kind)) info")
        return try .json(try await core.store.info(updated), encoder: core.encoder)
    }

    /// Joins a group (an invite-only one with an invitation, which it uses up) or enters
    /// a room. Joining an invite-only group uninvited answers 404, as if it did not exist.
    static func enter(_ context: RequestContext, _ kind: ConversationKind) async throws -> Response {
        let session = try context.caller
        let name = try context.parameter("name").lowercased()
        guard let record = try await context.core.store.conversation(kind: kind, name: name) else {
            throw APIError(.notFound, "no \(noun(kind)) '\(name)'")
        }
        if try await join(context.core, record, session) == .notInvited {
            throw ConversationAccess.noSuchGroup(name)
        }
        let fresh = try await context.core.store.conversation(id: record.id) ?? record
        return try .json(try await context.core.store.info(fresh), encoder: context.core.encoder)
    }

    static func leave(_ context: RequestContext, _ kind: ConversationKind) async throws -> Response {
        let core = context.core
        let session = try context.caller
        let record = try await named(context, kind)
        let notice = kind == .group ? "left the group" : "left the room"
        let left = try await core.store.removeMember(
            record.id, session.userID,
            change: MembershipChange(event: .memberLeft, notice: "\(session.username) \(notice)"))
        guard left else { throw ConversationAccess.notMember(record) }
        return .noContent
    }

    static func members(_ context: RequestContext, _ kind: ConversationKind) async throws -> Response {
        let session = try context.caller
        let record = try await named(context, kind)
        guard try await context.core.store.membership(record.id, session.userID) != nil else {
            throw ConversationAccess.notMember(record)
        }
        let members = try await context.core.store.members(record.id)
        return try .json(MemberList(members: members), encoder: context.core.encoder)
    }

    /// Lets someone join a group: its owner and admins may, and server administrators.
    /// The invited account accepts by joining.
    static func invite(_ context: RequestContext) async throws -> Response {
        let core = context.core
        let session = try context.caller
        let record = try await named(context, .group, visibleTo: .membersInvitedAndAdministrators)
        let role = try await core.store.membership(record.id, session.userID)?.role
        guard session.isAdmin || (role ?? .member) >= .admin else {
            if role == nil { throw ConversationAccess.noSuchGroup(record.name) }
            throw APIError(
                .forbidden, "only the group's owner and admins invite people to '\(record.name)'", reason: "not_group_admin")
        }
        let body = try context.decode(GroupInviteRequest.self)
        let invitee = try await UserRoutes.existingUser(
            context, try Validate.name(body.user, field: "user", length: Limits.usernameLength))
        do {
            _ = try await core.store.invite(invitee.id, to: record.id, by: session.userID)
        } catch StoreError.conflict(let message) {
            throw APIError(.conflict, message, field: "user")
        }
        let invitation = GroupInvite(
            group: record.name, user: invitee.user.username, invitedBy: session.username, createdAt: core.now())
        return try .json(invitation, status: 201, encoder: core.encoder)
    }
}
