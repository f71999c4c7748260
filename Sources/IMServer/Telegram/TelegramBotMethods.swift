import HTTPServer
import IMProtocol
import IMStore

/// The bot itself: who it is, its command menu, its names and descriptions, and
/// profile photos and files.
enum TelegramBotMethods {
    static let methods: [TelegramMethod] = [
        TelegramMethod("getMe", getMe),
        TelegramMethod("logOut") { _ in try TelegramJSON.success(true) },
        TelegramMethod("close") { _ in try TelegramJSON.success(true) },
        TelegramMethod("setMyCommands", setMyCommands),
        TelegramMethod("getMyCommands", getMyCommands),
        TelegramMethod("deleteMyCommands", deleteMyCommands),
        TelegramMethod("setMyName", setMyName),
        TelegramMethod("getMyName", getMyName),
        TelegramMethod("setMyDescription") { try await setText($0, "description", 512, \.descriptions) },
        TelegramMethod("getMyDescription") { call in
            try TelegramJSON.success(TGBotDescription(description: try await text(call, \.descriptions)))
        },
        TelegramMethod("setMyShortDescription") { try await setText($0, "short_description", 120, \.shortDescriptions) },
        TelegramMethod("getMyShortDescription") { call in
            try TelegramJSON.success(TGBotShortDescription(shortDescription: try await text(call, \.shortDescriptions)))
        },
        TelegramMethod("getUserProfilePhotos", TelegramFiles.getUserProfilePhotos),
        TelegramMethod("getFile", TelegramFiles.getFile),
    ]

    /// The bot's account, with what it can do: join groups and read every message in
    /// them (Switchboard has no privacy mode), and no inline queries.
    static func getMe(_ call: TelegramCall) async throws -> Response {
        guard let record = try await call.core.store.user(id: call.bot) else { throw TelegramError.unauthorized }
        var me = TelegramObjects.user(record.user)
        me.canJoinGroups = true
        me.canReadAllGroupMessages = true
        me.supportsInlineQueries = false
        me.canConnectToBusiness = false
        me.hasMainWebApp = false
        return try TelegramJSON.success(me)
    }

    /// Where a command list applies: its `scope` (type, and chat and user for the narrow
    /// ones) and `language_code`.
    private static func commandKey(_ call: TelegramCall) throws -> String {
        struct Scope: Decodable {
            var type: String
            var chatId: StringOrNumber?
            var userId: Int64?
        }
        let scope = try call.parameters.decode("scope", as: Scope.self)
        let kinds = ["default", "all_private_chats", "all_group_chats", "all_chat_administrators", "chat",
                     "chat_administrators", "chat_member"]
        let type = scope?.type ?? "default"
        guard kinds.contains(type) else { throw TelegramError.badRequest("unsupported bot command scope type '\(type)'") }
        let language = try call.parameters.string("language_code") ?? ""
        return [type, scope?.chatId?.text ?? "", scope?.userId.map(String.init) ?? "", language].joined(separator: "|")
    }

    static func setMyCommands(_ call: TelegramCall) async throws -> Response {
        let commands = try call.parameters.decode("commands", as: [TGBotCommand].self) ?? []
        guard commands.count <= 100 else { throw TelegramError.badRequest("too many commands: at most 100") }
        for command in commands {
            let name = command.command.hasPrefix("/") ? String(command.command.dropFirst()) : command.command
            guard (1...32).contains(name.count),
                name.unicodeScalars.allSatisfy({ $0.isASCII && ($0 == "_" || $0.properties.isLowercase || ("0"..."9").contains($0)) })
            else {
                throw TelegramError.badRequest("command '\(command.command)' is invalid: 1-32 of a-z, 0-9 and _")
            }
            guard (1...256).contains(command.description.count) else {
                throw TelegramError.badRequest("command description must be 1-256 characters")
            }
        }
        let key = try commandKey(call)
        try await call.updateSettings { $0.commands[key] = commands.isEmpty ? nil : commands }
        return try TelegramJSON.success(true)
    }

    static func getMyCommands(_ call: TelegramCall) async throws -> Response {
        let key = try commandKey(call)
        return try TelegramJSON.success(try await call.settings().commands[key] ?? [])
    }

    static func deleteMyCommands(_ call: TelegramCall) async throws -> Response {
        let key = try commandKey(call)
        try await call.updateSettings { $0.commands[key] = nil }
        return try TelegramJSON.success(true)
    }

    /// `setMyName` without a language is the bot's nickname (what people see); names for
    /// languages are kept for `getMyName`. An empty name goes back to the username.
    static func setMyName(_ call: TelegramCall) async throws -> Response {
        let name = try call.parameters.string("name") ?? ""
        guard name.count <= 64 else { throw TelegramError.badRequest("bot name is too long: at most 64 characters") }
        let language = try call.parameters.string("language_code") ?? ""
        if language.isEmpty {
            let nickname = name.isEmpty ? call.session.username : name
            try await call.v1(AccountRoutes.updateMe, body: ProfileUpdate(nickname: nickname))
        } else {
            try await call.updateSettings { $0.names[language] = name.isEmpty ? nil : name }
        }
        return try TelegramJSON.success(true)
    }

    static func getMyName(_ call: TelegramCall) async throws -> Response {
        let language = try call.parameters.string("language_code") ?? ""
        if !language.isEmpty, let name = try await call.settings().names[language] {
            return try TelegramJSON.success(TGBotName(name: name))
        }
        guard let record = try await call.core.store.user(id: call.bot) else { throw TelegramError.unauthorized }
        return try TelegramJSON.success(TGBotName(name: record.user.nickname))
    }

    private static func setText(
        _ call: TelegramCall, _ parameter: String, _ limit: Int,
        _ field: WritableKeyPath<TelegramBotSettings, [String: String]>
    ) async throws -> Response {
        let value = try call.parameters.string(parameter) ?? ""
        guard value.count <= limit else { throw TelegramError.badRequest("\(parameter) is too long: at most \(limit) characters") }
        let language = try call.parameters.string("language_code") ?? ""
        try await call.updateSettings { $0[keyPath: field][language] = value.isEmpty ? nil : value }
        return try TelegramJSON.success(true)
    }

    private static func text(_ call: TelegramCall, _ field: KeyPath<TelegramBotSettings, [String: String]>) async throws
        -> String
    {
        let language = try call.parameters.string("language_code") ?? ""
        let settings = try await call.settings()
        return settings[keyPath: field][language] ?? settings[keyPath: field][""] ?? ""
    }
}

/// A JSON value that is a number or a string (`chat_id` in a scope: an id or `@name`).
struct StringOrNumber: Decodable, Sendable {
    var text: String

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int64.self) {
            text = String(number)
        } else {
            text = try container.decode(String.self)
        }
    }
}
