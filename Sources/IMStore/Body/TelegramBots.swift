import IMProtocol

/// The Telegram Bot API state of bot accounts (`TelegramBotStore`), one `telegram_bots`
/// row each.
extension StoreEngine {
    private static var telegramColumns: String { "acknowledged, webhook, settings" }

    private static func telegramRecord(_ row: Connection.Row, at start: Int = 0) throws -> TelegramBotRecord {
        TelegramBotRecord(
            acknowledged: try row.int(start), webhook: try row.optionalText(start + 1), settings: try row.text(start + 2))
    }

    public func telegramBot(_ userID: UserID) async throws -> TelegramBotRecord? {
        try await read { connection in
            try connection.first(
                "SELECT \(Self.telegramColumns) FROM telegram_bots WHERE user_id = ?1", userID.rawValue,
                as: { try Self.telegramRecord($0) })
        }
    }

    public func createTelegramBot(_ userID: UserID, acknowledged: Int64) async throws -> TelegramBotRecord {
        try await write { context in
            let connection = context.connection
            try connection.execute(
                "INSERT INTO telegram_bots (user_id, acknowledged) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
                userID.rawValue, acknowledged)
            guard let record = try connection.first(
                "SELECT \(Self.telegramColumns) FROM telegram_bots WHERE user_id = ?1", userID.rawValue,
                as: { try Self.telegramRecord($0) })
            else { throw StoreError.notFound("no bot \(userID)") }
            return record
        }
    }

    public func acknowledgeTelegramUpdates(_ userID: UserID, before acknowledged: Int64) async throws {
        try await write { context in
            _ = try context.connection.execute(
                "UPDATE telegram_bots SET acknowledged = ?1 WHERE user_id = ?2 AND acknowledged < ?1",
                acknowledged, userID.rawValue)
        }
    }

    public func setTelegramWebhook(_ userID: UserID, _ webhook: String?) async throws {
        try await write { context in
            _ = try context.connection.execute(
                "UPDATE telegram_bots SET webhook = ?1 WHERE user_id = ?2", webhook, userID.rawValue)
        }
    }

    public func setTelegramSettings(_ userID: UserID, _ settings: String) async throws {
        try await write { context in
            _ = try context.connection.execute(
                "UPDATE telegram_bots SET settings = ?1 WHERE user_id = ?2", settings, userID.rawValue)
        }
    }

    public func telegramWebhooks() async throws -> [(UserID, TelegramBotRecord)] {
        try await read { connection in
            try connection.rows(
                "SELECT user_id, \(Self.telegramColumns) FROM telegram_bots WHERE webhook IS NOT NULL ORDER BY user_id",
                as: { (UserID(rawValue: try $0.int(0)), try Self.telegramRecord($0, at: 1)) })
        }
    }
}
