import HTTPServer
import IMProtocol
import IMStore

/// Groups (`/v1/groups`) and rooms (`/v1/rooms`): the same operations on two kinds.
/// Groups keep members until they leave and have doors (`join`: invite-only unless made
/// `open` or `approval`; invitations and requests: `AdmissionRoutes`); rooms hold
/// whoever is present, and creating a room that exists simply enters it.
///
/// An invite-only group is invisible to whoever is not in it: its info, members, history
/// and sends answer 404 as for a group that does not exist. Those invited (and server
/// administrators) see its info, so they know what they are joining. A group that takes
/// requests shows outsiders its name and description only. Names are unique
/// server-wide, so creating a group under a taken name answers 409 whatever it is.
enum GroupRoutes {
    static let routes: [Route] = routes(kind: .group, base: "/v1/groups", join: "join")
        + routes(kind: .room, base: "/v1/rooms", join: "enter")

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
        /// Members and server administrators (who moderate any group).
        case membersAndAdministrators
        /// Members, the invited, and server administrators (the group's info).
        case membersInvitedAndAdministrators
    }

    private static func canSee(_ record: ConversationRecord, _ context: RequestContext, _ visibility: Visibility)
        async throws -> Bool
    {
        let session = try context.caller
        let store = context.core.store
        if try await store.membership(record.id, session.userID) != nil { return true }
        switch visibility {
        case .members: return false
        case .membersAndAdministrators: return session.isAdmin
        case .membersInvitedAndAdministrators:
            if session.isAdmin { return true }
            return try await store.isInvited(session.userID, to: record.id)
        }
    }

    /// Where the caller stands in a group.
    static func standing(_ record: ConversationRecord, _ context: RequestContext) async throws -> GroupRules.Standing {
        let session = try context.caller
        let role = try await context.core.store.membership(record.id, session.userID)?.role
        return GroupRules.Standing(role: role, isServerAdministrator: session.isAdmin)
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
        try check(body.settings, for: kind)
        if kind == .room, let existing = try await core.store.conversation(kind: .room, name: name) {
            return try .json(try await enterExisting(core, existing, session), encoder: core.encoder)
        }
        do {
            let record = try await core.store.createConversation(
                kind: kind, name: name, title: body.title ?? "", description: body.description ?? "",
                logoURL: body.logoURL ?? "", creator: session.userID, settings: body.settings)
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

    /// Settings are for groups, and slow mode is whole seconds up to a day.
    private static func check(_ settings: GroupSettings, for kind: ConversationKind) throws {
        if kind == .room, !settings.isEmpty {
            let field =
                settings.join != nil ? "join" : settings.newMembers != nil ? "new_members"
                : settings.slowMode != nil ? "slow_mode" : "info_editable_by"
            throw APIError.invalid(field, "rooms have no \(field): anyone may enter a room and speak there")
        }
        _ = try settings.slowModeSeconds()
    }

    /// The info of a group or room. An outsider sees an approval group's preview: its name,
    /// description and policy, so they know what they ask to join.
    static func info(_ context: RequestContext, _ kind: ConversationKind) async throws -> Response {
        let record = try await named(context, kind, visibleTo: .membersInvitedAndAdministrators)
        let info = try await context.core.store.info(record)
        if kind == .group, record.joinPolicy == .approval,
            try await GroupRoutes.standing(record, context) == .outsider,
            !(try await context.core.store.isInvited(try context.caller.userID, to: record.id))
        {
            return try .json(info.outsidersPreview, encoder: context.core.encoder)
        }
        return try .json(info, encoder: context.core.encoder)
    }

    /// Changes title, logo or description (a group's admins, or its members when
    /// `info_editable_by: members`; anyone in a room) and a group's settings (its admins).
    /// The store checks who may, in the same transaction as the change.
    static func update(_ context: RequestContext, _ kind: ConversationKind) async throws -> Response {
        let core = context.core
        let session = try context.caller
        let record = try await named(context, kind, visibleTo: .membersAndAdministrators)
        // Server administrators manage any group; rooms are for those present.
        let present = try await core.store.membership(record.id, session.userID) != nil
        guard present || (kind == .group && session.isAdmin) else { throw ConversationAccess.notMember(record) }
        let update = try context.decode(ConversationInfoUpdate.self)
        guard !update.isEmpty else {
            throw APIError(
                .invalidRequest,
                "nothing to change: give title, logo_url or description"
                    + (kind == .group ? ", or a setting (join, new_members, slow_mode, info_editable_by)" : ""))
        }
        try update.validate()
        try check(update.settings, for: kind)
        try await MediaReference.check(update.logoURL, field: "logo_url", by: session.userID, core)
        let what = update.changesInfo ? "info" : "settings"
        let updated = try await core.store.updateInfo(
            record.id, update, by: session.acting,
            notice: "\(session.username) changed the \(noun(kind)) \(what)")
        return try .json(try await core.store.info(updated), encoder: core.encoder)
    }

    /// Joins a group by its policy or enters a room. An invitation lets anyone in; without
    /// one an open group answers 200, an approval group 202 with the request waiting for
    /// an admin, and an invite-only group 404, as if it did not exist.
    static func enter(_ context: RequestContext, _ kind: ConversationKind) async throws -> Response {
        let core = context.core
        let session = try context.caller
        let name = try context.parameter("name").lowercased()
        guard let record = try await core.store.conversation(kind: kind, name: name) else {
            throw APIError(.notFound, "no \(noun(kind)) '\(name)'")
        }
        switch try await join(core, record, session) {
        case .joined, .alreadyMember:
            break
        case .notInvited:
            throw ConversationAccess.noSuchGroup(name)
        case .banned(let until):
            // Banned from an invite-only group is outside it: it stays invisible.
            if record.joinPolicy == .invite { throw ConversationAccess.noSuchGroup(name) }
            throw StoreError.banned(until: until)
        case .requested:
            let request = try await core.store.joinRequests(for: session.userID).first { $0.group == record.name }
            return try .json(
                request ?? GroupJoinRequest(group: record.name, user: session.username, createdAt: core.now()), status: 202,
                encoder: core.encoder)
        }
        let fresh = try await core.store.conversation(id: record.id) ?? record
        return try .json(try await core.store.info(fresh), encoder: core.encoder)
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

    /// Who is in a group (its members, and server administrators managing it) or room.
    static func members(_ context: RequestContext, _ kind: ConversationKind) async throws -> Response {
        let session = try context.caller
        let record = try await named(context, kind, visibleTo: .membersAndAdministrators)
        guard try await context.core.store.membership(record.id, session.userID) != nil || (kind == .group && session.isAdmin)
        else {
            throw ConversationAccess.notMember(record)
        }
        let members = try await context.core.store.members(record.id)
        return .members(MemberList(members: members))
    }
}
