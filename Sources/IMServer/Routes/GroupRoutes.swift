import HTTPServer
import IMProtocol
import IMStore

/// Groups (`/v1/groups`) and rooms (`/v1/rooms`): the same operations on two kinds.
/// Groups keep members until they leave; rooms hold whoever is present, and creating a
/// room that exists simply enters it.
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

    static func named(_ context: RequestContext, _ kind: ConversationKind) async throws -> ConversationRecord {
        let name = try context.parameter("name").lowercased()
        guard let record = try await context.core.store.conversation(kind: kind, name: name) else {
            throw APIError(.notFound, "no \(noun(kind)) '\(name)'")
        }
        return record
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
        if kind == .room, let existing = try await core.store.conversation(kind: .room, name: name) {
            return try .json(try await enterExisting(core, existing, session), encoder: core.encoder)
        }
        do {
            let record = try await core.store.createConversation(
                kind: kind, name: name, title: body.title ?? "", description: body.description ?? "",
                logoURL: body.logoURL ?? "", creator: session.userID)
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
        try await join(core, record, session)
        return try await core.store.info(try await core.store.conversation(id: record.id) ?? record)
    }

    private static func join(_ core: ServerServices, _ record: ConversationRecord, _ session: Session) async throws {
        let notice = record.kind == .group ? "joined the group" : "entered the room"
        _ = try await core.store.addMember(
            record.id, session.userID, role: .member,
            change: MembershipChange(event: .memberJoined, notice: "\(session.username) \(notice)"))
    }

    static func info(_ context: RequestContext, _ kind: ConversationKind) async throws -> Response {
        let record = try await named(context, kind)
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
        let updated = try await core.store.updateInfo(
            record.id, update, by: session.userID, notice: "\(session.username) changed the \(noun(kind)) info")
        return try .json(try await core.store.info(updated), encoder: core.encoder)
    }

    static func enter(_ context: RequestContext, _ kind: ConversationKind) async throws -> Response {
        let session = try context.caller
        let record = try await named(context, kind)
        try await join(context.core, record, session)
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
}
