import HTTPServer
import IMProtocol
import IMStore

/// Chats: their info, title and description, leaving, and join requests, through the
/// `/v1` group and room routes.
enum TelegramChatMethods {
    static let methods: [TelegramMethod] = [
        TelegramMethod("getChat", getChat),
        TelegramMethod("getChatMemberCount", getChatMemberCount),
        TelegramMethod("getChatMembersCount", getChatMemberCount),
        TelegramMethod("leaveChat", leaveChat),
        TelegramMethod("setChatTitle", setChatTitle),
        TelegramMethod("setChatDescription", setChatDescription),
        TelegramMethod("approveChatJoinRequest") { try await joinRequest($0, approve: true) },
        TelegramMethod("declineChatJoinRequest") { try await joinRequest($0, approve: false) },
    ]

    /// A group's or room's info as `GET /v1/groups/{name}` shows it to the bot, or the
    /// other side of a private chat.
    static func getChat(_ call: TelegramCall) async throws -> Response {
        let chat = try await call.chat()
        switch chat.kind {
        case .privateChat(let user):
            return try TelegramJSON.success(
                TGChatFullInfo(
                    id: chat.chat.id, type: "private", username: user.username, firstName: chat.chat.firstName,
                    bio: user.signature.isEmpty ? nil : user.signature))
        case .conversation(let record):
            let info = try await call.v1(
                { try await GroupRoutes.info($0, record.kind) }, path: ["name": record.name], as: ConversationInfo.self)
            let permissions = TGChatPermissions.all(info.newMembers != .restricted)
            return try TelegramJSON.success(
                TGChatFullInfo(
                    id: chat.chat.id, type: "supergroup", title: chat.chat.title,
                    description: info.description.isEmpty ? nil : info.description, permissions: permissions,
                    joinByRequest: info.join == .approval ? true : nil))
        }
    }

    static func getChatMemberCount(_ call: TelegramCall) async throws -> Response {
        let chat = try await call.chat()
        guard case .conversation(let record) = chat.kind else { return try TelegramJSON.success(2) }
        let members = try await call.v1(
            { try await GroupRoutes.members($0, record.kind) }, path: ["name": record.name], as: MemberList.self)
        return try TelegramJSON.success(members.members.count)
    }

    static func leaveChat(_ call: TelegramCall) async throws -> Response {
        let record = try await call.chat().group(for: "leaveChat")
        try await call.v1({ try await GroupRoutes.leave($0, record.kind) }, path: ["name": record.name])
        return try TelegramJSON.success(true)
    }

    static func setChatTitle(_ call: TelegramCall) async throws -> Response {
        let record = try await call.chat().group(for: "setChatTitle")
        let title = try call.parameters.requiredString("title")
        try await call.v1(
            { try await GroupRoutes.update($0, record.kind) }, path: ["name": record.name],
            body: ConversationInfoUpdate(title: title))
        return try TelegramJSON.success(true)
    }

    static func setChatDescription(_ call: TelegramCall) async throws -> Response {
        let record = try await call.chat().group(for: "setChatDescription")
        let description = try call.parameters.string("description") ?? ""
        try await call.v1(
            { try await GroupRoutes.update($0, record.kind) }, path: ["name": record.name],
            body: ConversationInfoUpdate(description: description))
        return try TelegramJSON.success(true)
    }

    /// An admin bot lets someone who asked in, or turns them away.
    static func joinRequest(_ call: TelegramCall, approve: Bool) async throws -> Response {
        let record = try await call.chat().group(for: approve ? "approveChatJoinRequest" : "declineChatJoinRequest")
        let user = try await call.user()
        let path = ["name": record.name, "user": user.username]
        do {
            try await call.v1(approve ? AdmissionRoutes.approve : AdmissionRoutes.revokeRequest, path: path)
        } catch let error as APIError where error.code == .notFound {
            throw TelegramError.badRequest("HIDE_REQUESTER_MISSING")
        }
        return try TelegramJSON.success(true)
    }
}
