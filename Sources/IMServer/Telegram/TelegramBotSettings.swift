import Foundation
import IMProtocol
import IMStore

/// What a bot set through the Bot API about itself, kept as the JSON of its
/// `telegram_bots` row: command lists by scope and language, names and descriptions by
/// language, and the update kinds it asked for.
struct TelegramBotSettings: Codable, Sendable, Equatable {
    var commands: [String: [TGBotCommand]] = [:]
    var names: [String: String] = [:]
    var descriptions: [String: String] = [:]
    var shortDescriptions: [String: String] = [:]
    /// `allowed_updates` as last given; nil: Telegram's default (everything but
    /// `chat_member`).
    var allowedUpdates: [String]?

    /// The update kinds this server makes, in the order Telegram lists them.
    static let updateKinds = ["message", "edited_message", "my_chat_member", "chat_member"]

    /// Whether updates of `kind` go to the bot.
    func allows(_ kind: String) -> Bool {
        guard let allowedUpdates, !allowedUpdates.isEmpty else { return kind != "chat_member" }
        return allowedUpdates.contains(kind)
    }

    static func decode(_ text: String) -> TelegramBotSettings {
        (try? JSONDecoder().decode(TelegramBotSettings.self, from: Data(text.utf8))) ?? TelegramBotSettings()
    }

    var encoded: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}

extension TelegramCall {
    /// The bot's row, made when it is missing (a token issued before this server knew of
    /// the dialect): its updates then start after what is committed now.
    func botRecord() async throws -> TelegramBotRecord {
        if let record = try await core.store.telegramBot(bot) { return record }
        return try await core.store.createTelegramBot(
            bot, acknowledged: TelegramUpdateID.first(of: core.store.committedPosition + 1))
    }

    func settings() async throws -> TelegramBotSettings {
        TelegramBotSettings.decode(try await botRecord().settings)
    }

    /// Reads, changes and writes the bot's settings.
    func updateSettings(_ change: (inout TelegramBotSettings) throws -> Void) async throws {
        var settings = try await settings()
        try change(&settings)
        try await core.store.setTelegramSettings(bot, settings.encoded)
    }
}
