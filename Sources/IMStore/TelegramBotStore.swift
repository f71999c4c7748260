import IMProtocol

/// What the server keeps for a bot that speaks the Telegram Bot API (docs/telegram.md):
/// where its updates are confirmed up to, its webhook, and its settings (commands,
/// names). The store reads none of the texts; the server's Telegram adapter writes them.
public struct TelegramBotRecord: Sendable, Equatable {
    /// The first update id not confirmed yet: `getUpdates` with `offset` moves it forward,
    /// a webhook's delivered updates too.
    public var acknowledged: Int64
    /// The webhook (JSON), nil while the bot polls with `getUpdates`.
    public var webhook: String?
    /// Commands, names and descriptions (JSON).
    public var settings: String

    public init(acknowledged: Int64, webhook: String? = nil, settings: String = "{}") {
        self.acknowledged = acknowledged
        self.webhook = webhook
        self.settings = settings
    }
}

/// The Telegram Bot API state of bot accounts, one row each (`telegram_bots`).
public protocol TelegramBotStore: Sendable {
    /// The bot's row, or nil before its first Telegram login or token.
    func telegramBot(_ userID: UserID) async throws -> TelegramBotRecord?
    /// Creates the bot's row with updates confirmed before `acknowledged`; an existing
    /// row is kept as it is. Returns the row.
    func createTelegramBot(_ userID: UserID, acknowledged: Int64) async throws -> TelegramBotRecord
    /// Moves the confirmed point forward to `acknowledged` (never back).
    func acknowledgeTelegramUpdates(_ userID: UserID, before acknowledged: Int64) async throws
    /// Sets or removes (nil) the bot's webhook.
    func setTelegramWebhook(_ userID: UserID, _ webhook: String?) async throws
    /// Replaces the bot's settings.
    func setTelegramSettings(_ userID: UserID, _ settings: String) async throws
    /// Every bot with a webhook, with its row.
    func telegramWebhooks() async throws -> [(UserID, TelegramBotRecord)]
}
