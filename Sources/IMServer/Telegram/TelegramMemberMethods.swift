import Foundation
import HTTPServer
import IMProtocol
import IMStore

/// Members: who they are and how they stand, and moderation, through
/// `POST /v1/groups/{name}/moderation` (the store decides who may act on whom, as for
/// any member: a bot moderates once the group's owner has made it an admin).
enum TelegramMemberMethods {
    static let methods: [TelegramMethod] = [
        TelegramMethod("getChatMember", getChatMember),
        TelegramMethod("getChatAdministrators", getChatAdministrators),
        TelegramMethod("banChatMember", banChatMember),
        TelegramMethod("kickChatMember", banChatMember),
        TelegramMethod("unbanChatMember", unbanChatMember),
        TelegramMethod("restrictChatMember", restrictChatMember),
        TelegramMethod("promoteChatMember", promoteChatMember),
    ]

    static func getChatMember(_ call: TelegramCall) async throws -> Response {
        let chat = try await call.chat()
        let user = try await call.user()
        let member = call.objects.remember(user)
        guard case .conversation(let record) = chat.kind else {
            let inChat = user.id == call.bot || chat.chat.id == user.id.rawValue
            return try TelegramJSON.success(TGChatMember(user: member, status: inChat ? .member : .left))
        }
        if let found = try await members(record, call).first(where: { $0.user.id == user.id }) {
            return try TelegramJSON.success(
                TGChatMember(
                    user: member, role: found.role, muted: found.muted == true || found.restricted == true,
                    mutedUntil: found.mutedUntil))
        }
        if let ban = try await call.core.store.activeBan(record.id, user.id) {
            return try TelegramJSON.success(
                TGChatMember(user: member, status: .kicked(until: ban.until.map(TelegramTime.seconds) ?? 0)))
        }
        return try TelegramJSON.success(TGChatMember(user: member, status: .left))
    }

    static func getChatAdministrators(_ call: TelegramCall) async throws -> Response {
        let record = try await call.chat().group(for: "getChatAdministrators")
        let admins = try await members(record, call).filter { $0.role != .member }.map {
            TGChatMember(user: call.objects.remember($0.user), status: TGChatMember.status(of: $0.role))
        }
        return try TelegramJSON.success(admins)
    }

    private static func members(_ record: ConversationRecord, _ call: TelegramCall) async throws -> [Member] {
        try await call.v1(
            { try await GroupRoutes.members($0, record.kind) }, path: ["name": record.name], as: MemberList.self
        ).members
    }

    /// `banChatMember` until `until_date` (Telegram's rule: under 30 s or over 366 days
    /// from now is for ever).
    static func banChatMember(_ call: TelegramCall) async throws -> Response {
        let (record, user) = try await target(call, "banChatMember")
        try await moderate(.ban, user, in: record, for: try duration(call), call)
        return try TelegramJSON.success(true)
    }

    /// Lifts a ban; for a member, unless `only_if_banned`, removes them (Telegram's
    /// promise: afterwards they are not a member, and may join again).
    static func unbanChatMember(_ call: TelegramCall) async throws -> Response {
        let (record, user) = try await target(call, "unbanChatMember")
        if try await call.core.store.activeBan(record.id, user.id) != nil {
            try await moderate(.unban, user, in: record, call)
        } else if try await call.parameters.bool("only_if_banned") != true,
            try await call.core.store.membership(record.id, user.id) != nil
        {
            try await moderate(.kick, user, in: record, call)
        }
        return try TelegramJSON.success(true)
    }

    /// Switchboard restricts in one way, posting: `can_send_messages: false` mutes (until
    /// `until_date`), permissions that allow sending unmute (also lifting a newcomer's
    /// wait).
    static func restrictChatMember(_ call: TelegramCall) async throws -> Response {
        let (record, user) = try await target(call, "restrictChatMember")
        guard let permissions = try call.parameters.decode("permissions", as: TGChatPermissions.self) else {
            throw TelegramError.badRequest("permissions is empty")
        }
        if permissions.canSendMessages == false {
            try await moderate(.mute, user, in: record, for: try duration(call), call)
        } else {
            try await moderate(.unmute, user, in: record, call)
        }
        return try TelegramJSON.success(true)
    }

    /// Any right given promotes to admin; every right refused demotes (Telegram's rule).
    static func promoteChatMember(_ call: TelegramCall) async throws -> Response {
        let (record, user) = try await target(call, "promoteChatMember")
        var given: [Bool] = []
        for (name, _) in call.parameters.values where name.hasPrefix("can_") || name == "is_anonymous" {
            if let value = try call.parameters.bool(name) { given.append(value) }
        }
        try await moderate(given.contains(true) ? .promote : .demote, user, in: record, call)
        return try TelegramJSON.success(true)
    }

    private static func target(_ call: TelegramCall, _ method: String) async throws -> (ConversationRecord, User) {
        let record = try await call.chat().group(for: method)
        guard record.kind == .group else {
            throw TelegramError.badRequest("\(method): rooms have no moderation, and this chat is a room")
        }
        let user = try await call.user()
        if user.id == call.bot { throw TelegramError.badRequest("can't \(method) itself") }
        return (record, user)
    }

    /// `until_date` as a duration from now, or nil for ever.
    private static func duration(_ call: TelegramCall) throws -> ConfigDuration? {
        guard let until = try call.parameters.int("until_date"), until > 0 else { return nil }
        let seconds = Double(until) - Double(call.core.now().milliseconds) / 1000
        guard seconds >= 30, seconds <= 366 * 86400 else { return nil }
        return ConfigDuration(seconds: seconds.rounded())
    }

    private static func moderate(
        _ action: ModerationAction, _ user: User, in record: ConversationRecord, for duration: ConfigDuration? = nil,
        _ call: TelegramCall
    ) async throws {
        do {
            try await call.v1(
                ModerationRoutes.moderate, path: ["name": record.name],
                body: ModerationRequest(action: action, user: user.username, duration: duration))
        } catch let error as APIError where error.code == .forbidden {
            throw TelegramError.badRequest("not enough rights to \(action.rawValue) \(user.username): \(error.message)")
        }
    }
}
