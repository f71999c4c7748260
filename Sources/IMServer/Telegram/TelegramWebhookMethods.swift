import Foundation
import HTTPServer
import IMProtocol
import IMStore

/// A bot's webhook as kept in its `telegram_bots` row, with how its last delivery went.
struct TelegramWebhook: Codable, Sendable, Equatable {
    var url: String
    var secretToken: String?
    var maxConnections: Int
    var lastErrorDate: Int64?
    var lastErrorMessage: String?

    static func decode(_ text: String?) -> TelegramWebhook? {
        text.flatMap { try? JSONDecoder().decode(TelegramWebhook.self, from: Data($0.utf8)) }
    }

    var encoded: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}

/// `setWebhook`, `deleteWebhook` and `getWebhookInfo`. While a webhook is set the server
/// posts each update to it (`TelegramWebhookDeliveries`) and `getUpdates` is refused.
enum TelegramWebhookMethods {
    /// `url` (http or https; an address that is not public must be allowed by the
    /// server's `telegram.webhook_allow`), `secret_token` (sent back as
    /// `X-Telegram-Bot-Api-Secret-Token`), `allowed_updates`, `max_connections` and
    /// `drop_pending_updates`. An empty `url` removes the webhook.
    static func setWebhook(_ call: TelegramCall) async throws -> Response {
        let url = try call.parameters.string("url") ?? ""
        if url.isEmpty { return try await deleteWebhook(call) }
        guard url.count <= 2048, let parsed = URLComponents(string: url), let scheme = parsed.scheme?.lowercased(),
            scheme == "https" || scheme == "http", let host = parsed.host, !host.isEmpty
        else {
            throw TelegramError.badRequest("bad webhook: an http or https URL is required")
        }
        let secret = try call.parameters.string("secret_token")
        if let secret {
            guard (1...256).contains(secret.utf8.count),
                secret.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-") })
            else {
                throw TelegramError.badRequest("bad webhook: secret token contains unallowed characters")
            }
        }
        if let refusal = call.core.telegramWebhooks.refusal(forHost: host) {
            throw TelegramError.badRequest("bad webhook: \(refusal)")
        }
        let connections = Int(min(max(try call.parameters.int("max_connections") ?? 40, 1), 100))
        _ = try await call.botRecord()
        if let allowed = try call.parameters.decode("allowed_updates", as: [String].self) {
            try await call.updateSettings { $0.allowedUpdates = allowed }
        }
        if try call.parameters.bool("drop_pending_updates") == true { try await dropPending(call) }
        let webhook = TelegramWebhook(url: url, secretToken: secret, maxConnections: connections)
        try await call.core.store.setTelegramWebhook(call.bot, webhook.encoded)
        // A getUpdates waiting now ends: updates go to the webhook from here on.
        call.core.hub.end(tokenID: call.session.tokenID, with: .replaced)
        call.core.telegramWebhooks.changed(call.bot)
        return try TelegramJSON.success(true)
    }

    static func deleteWebhook(_ call: TelegramCall) async throws -> Response {
        _ = try await call.botRecord()
        if try call.parameters.bool("drop_pending_updates") == true { try await dropPending(call) }
        try await call.core.store.setTelegramWebhook(call.bot, nil)
        call.core.telegramWebhooks.changed(call.bot)
        return try TelegramJSON.success(true)
    }

    static func getWebhookInfo(_ call: TelegramCall) async throws -> Response {
        let record = try await call.botRecord()
        let settings = TelegramBotSettings.decode(record.settings)
        let pending = try await TelegramUpdateReader(core: call.core, bot: call.bot)
            .read(from: record.acknowledged, limit: 100, settings: settings).updates.count
        guard let webhook = TelegramWebhook.decode(record.webhook) else {
            return try TelegramJSON.success(TGWebhookInfo(url: "", pendingUpdateCount: pending))
        }
        return try TelegramJSON.success(
            TGWebhookInfo(
                url: webhook.url, pendingUpdateCount: pending, lastErrorDate: webhook.lastErrorDate,
                lastErrorMessage: webhook.lastErrorMessage, maxConnections: webhook.maxConnections,
                allowedUpdates: settings.allowedUpdates ?? TelegramBotSettings.updateKinds.filter(settings.allows)))
    }

    /// Confirms every update up to the present.
    private static func dropPending(_ call: TelegramCall) async throws {
        try await call.core.store.acknowledgeTelegramUpdates(
            call.bot, before: TelegramUpdateID.first(of: call.core.store.committedPosition + 1))
    }
}
