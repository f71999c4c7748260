import IMProtocol

/// The Telegram Bot API state of bot accounts (`TelegramBotStore`), one `telegram_bots`
/// row each.
extension SQLiteStore: TelegramBotStore {
    private static let telegramColumns = "acknowledged, webhook, settings"

    private static func telegramRecord(_ row: SQLiteRow) -> TelegramBotRecord {
        TelegramBotRecord(acknowledged: row.int(0), webhook: row.optionalText(1), settings: row.text(2))
    }

    public func telegramBot(_ userID: UserID) async throws -> TelegramBotRecord? {
        try await database.read { connection in
            try connection.first(
                "SELECT \(Self.telegramColumns) FROM telegram_bots WHERE user_id = ?", userID.rawValue,
                as: Self.telegramRecord)
        }
    }

    public func createTelegramBot(_ userID: UserID, acknowledged: Int64) async throws -> TelegramBotRecord {
        try await database.write { context in
            let connection = context.connection
            try connection.execute(
                "INSERT INTO telegram_bots (user_id, acknowledged) VALUES (?, ?) ON CONFLICT DO NOTHING",
                userID.rawValue, acknowledged)
            guard let record = try connection.first(
                "SELECT \(Self.telegramColumns) FROM telegram_bots WHERE user_id = ?", userID.rawValue,
                as: Self.telegramRecord)
            else { throw StoreError.notFound("no bot \(userID)") }
            return record
        }
    }

    public func acknowledgeTelegramUpdates(_ userID: UserID, before acknowledged: Int64) async throws {
        try await database.write { context in
            _ = try context.connection.execute(
                "UPDATE telegram_bots SET acknowledged = ? WHERE user_id = ? AND acknowledged < ?",
                acknowledged, userID.rawValue, acknowledged)
        }
    }

    public func setTelegramWebhook(_ userID: UserID, _ webhook: String?) async throws {
        try await database.write { context in
            _ = try context.connection.execute(
                "UPDATE telegram_bots SET webhook = ? WHERE user_id = ?", webhook, userID.rawValue)
        }
    }

    public func setTelegramSettings(_ userID: UserID, _ settings: String) async throws {
        try await database.write { context in
            _ = try context.connection.execute(
                "UPDATE telegram_bots SET settings = ? WHERE user_id = ?", settings, userID.rawValue)
        }
    }

    public func telegramWebhooks() async throws -> [(UserID, TelegramBotRecord)] {
        try await database.read { connection in
            try connection.rows(
                "SELECT user_id, \(Self.telegramColumns) FROM telegram_bots WHERE webhook IS NOT NULL ORDER BY user_id",
                as: {
                    (UserID(rawValue: $0.int(0)),
                     TelegramBotRecord(acknowledged: $0.int(1), webhook: $0.optionalText(2), settings: $0.text(3)))
                })
        }
    }
}
