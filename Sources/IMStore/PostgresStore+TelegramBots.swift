import IMProtocol

/// The Telegram Bot API state of bot accounts (as `SQLiteStore+TelegramBots.swift`).
extension PostgresStore: TelegramBotStore {
    private static let telegramColumns = "acknowledged, webhook, settings"

    private static func telegramRecord(_ row: PostgresRow) throws -> TelegramBotRecord {
        TelegramBotRecord(acknowledged: try row.int(0), webhook: try row.optionalText(1), settings: try row.text(2))
    }

    public func telegramBot(_ userID: UserID) async throws -> TelegramBotRecord? {
        try await read { connection in
            try connection.first(
                "SELECT \(Self.telegramColumns) FROM telegram_bots WHERE user_id = $1", userID.rawValue,
                as: Self.telegramRecord)
        }
    }

    public func createTelegramBot(_ userID: UserID, acknowledged: Int64) async throws -> TelegramBotRecord {
        try await write { context in
            let connection = context.connection
            try connection.execute(
                "INSERT INTO telegram_bots (user_id, acknowledged) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                userID.rawValue, acknowledged)
            guard let record = try connection.first(
                "SELECT \(Self.telegramColumns) FROM telegram_bots WHERE user_id = $1", userID.rawValue,
                as: Self.telegramRecord)
            else { throw StoreError.notFound("no bot \(userID)") }
            return record
        }
    }

    public func acknowledgeTelegramUpdates(_ userID: UserID, before acknowledged: Int64) async throws {
        try await write { context in
            _ = try context.connection.execute(
                "UPDATE telegram_bots SET acknowledged = $1 WHERE user_id = $2 AND acknowledged < $1",
                acknowledged, userID.rawValue)
        }
    }

    public func setTelegramWebhook(_ userID: UserID, _ webhook: String?) async throws {
        try await write { context in
            _ = try context.connection.execute(
                "UPDATE telegram_bots SET webhook = $1 WHERE user_id = $2", webhook, userID.rawValue)
        }
    }

    public func setTelegramSettings(_ userID: UserID, _ settings: String) async throws {
        try await write { context in
            _ = try context.connection.execute(
                "UPDATE telegram_bots SET settings = $1 WHERE user_id = $2", settings, userID.rawValue)
        }
    }

    public func telegramWebhooks() async throws -> [(UserID, TelegramBotRecord)] {
        try await read { connection in
            try connection.rows(
                "SELECT user_id, \(Self.telegramColumns) FROM telegram_bots WHERE webhook IS NOT NULL ORDER BY user_id",
                as: {
                    (UserID(rawValue: try $0.int(0)),
                     TelegramBotRecord(
                        acknowledged: try $0.int(1), webhook: try $0.optionalText(2), settings: try $0.text(3)))
                })
        }
    }
}
