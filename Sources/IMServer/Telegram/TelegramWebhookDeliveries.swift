import Foundation
import IMClient
import IMProtocol
import IMStore
import Lifecycle
import Logging
import Synchronization

/// Posts the updates of every bot with a webhook to it, one at a time and in order, as
/// Telegram does: an update is confirmed once its webhook answers 2xx; any other answer,
/// or none, is retried after 1, 2, 4… up to 60 s, and given up after
/// `TelegramSettings.webhookAttempts` tries (`getWebhookInfo` then shows the last error).
/// Each post carries `X-Telegram-Bot-Api-Secret-Token` when the bot set a secret.
///
/// A service of the server (`IMServerApp.run`): one task per bot with a webhook, waiting
/// on the event hub between updates as a parked poll does; `setWebhook` and
/// `deleteWebhook` restart the bot's task (`changed`). Webhooks reach public addresses,
/// and others only when `telegram.webhook_allow` lists them, judged on the address
/// connected to.
final class TelegramWebhookDeliveries: Sendable {
    private let settings: TelegramSettings
    private let changes: AsyncStream<UserID>
    private let announce: AsyncStream<UserID>.Continuation

    init(settings: TelegramSettings) {
        self.settings = settings
        (changes, announce) = AsyncStream.makeStream(of: UserID.self, bufferingPolicy: .bufferingNewest(10_000))
    }

    /// Why a webhook URL's host is refused before anything is posted (an address that
    /// is not public and not allowed); host names are judged when they are connected to.
    func refusal(forHost host: String) -> String? {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        guard let address = AddressAllowList.bytes(bare) else { return nil }
        let attempt = CurlTransport.ConnectAttempt(host: bare, address: address, port: 0)
        return settings.webhookAllow.refusal(attempt, by: "webhooks", setting: "the server's telegram.webhook_allow")
    }

    /// The bot's webhook was set or removed.
    func changed(_ bot: UserID) { announce.yield(bot) }

    /// Delivers until cancelled; then stops every bot's task and waits for them.
    func run(core: ServerServices) async {
        guard settings.deliversWebhooks else { return }
        let allow = settings.webhookAllow
        let transport = CurlTransport(
            configuration: .init(
                maxResponseBytes: 64 << 10, maxConnectionsPerHost: 8, maxTotalConnections: 256, maxCachedConnections: 256,
                connectFilter: { allow.refusal($0, by: "webhooks", setting: "the server's telegram.webhook_allow") }))
        var workers: [UserID: Task<Void, Never>] = [:]
        func start(_ bot: UserID) {
            workers[bot]?.cancel()
            let worker = TelegramWebhookWorker(core: core, bot: bot, transport: transport, attempts: settings.webhookAttempts)
            workers[bot] = Task { await worker.run() }
        }
        do {
            for (bot, _) in try await core.store.telegramWebhooks() { start(bot) }
        } catch {
            core.logger.warning("cannot read the bots' webhooks: \(error)")
        }
        for await bot in changes {
            start(bot)
            workers = workers.filter { !$0.value.isCancelled }
        }
        for worker in workers.values { worker.cancel() }
        for worker in workers.values { await worker.value }
        await transport.shutdown()
    }
}

/// One bot's deliveries.
struct TelegramWebhookWorker: Sendable {
    let core: ServerServices
    let bot: UserID
    let transport: CurlTransport
    let attempts: Int

    func run() async {
        while !Task.isCancelled {
            do {
                guard try await mayDeliver(), let record = try await core.store.telegramBot(bot),
                    let webhook = TelegramWebhook.decode(record.webhook)
                else { return }
                let batch = try await TelegramUpdateReader(core: core, bot: bot)
                    .read(from: record.acknowledged, limit: 100, settings: TelegramBotSettings.decode(record.settings))
                if batch.nothingBefore > record.acknowledged {
                    try await core.store.acknowledgeTelegramUpdates(bot, before: batch.nothingBefore)
                }
                if batch.updates.isEmpty {
                    await TelegramFeedWait.next(core: core, bot: bot, after: batch.readThrough)
                    continue
                }
                for update in batch.updates {
                    try await deliver(update, to: webhook)
                    try await core.store.acknowledgeTelegramUpdates(bot, before: update.updateId + 1)
                }
            } catch is CancellationError {
                return
            } catch {
                core.logger.warning("telegram webhook of bot \(bot): \(error)")
                do { try await core.time.sleep(for: .seconds(5)) } catch { return }
            }
        }
    }

    /// Whether the bot may still be given its updates: its account is neither suspended
    /// nor deleted and its Telegram token is live. A bot cut off stops here (checked again
    /// before each batch: suspending an account wakes its waits); `setWebhook` or the
    /// server's restart starts it again.
    private func mayDeliver() async throws -> Bool {
        guard let record = try await core.store.user(id: bot), record.suspendedAt == nil, record.deletedAt == nil else {
            return false
        }
        return try await core.store.liveTokens(of: bot, at: core.now()).contains { $0.device == TelegramToken.device }
    }

    /// Posts one update until its webhook takes it or the tries run out.
    private func deliver(_ update: TGUpdate, to webhook: TelegramWebhook) async throws {
        let body = try TelegramJSON.encoder.encode(update)
        var headers = [("Content-Type", "application/json")]
        if let secret = webhook.secretToken { headers.append(("X-Telegram-Bot-Api-Secret-Token", secret)) }
        var wait = 1.0
        for attempt in 1...attempts {
            let failure: String
            do {
                let response = try await transport.send(
                    TransportRequest(method: "POST", url: webhook.url, headers: headers, body: body, timeout: .seconds(30)))
                if (200..<300).contains(response.status) { return }
                failure = "Wrong response from the webhook: HTTP \(response.status)"
            } catch let error as TransportError where error.code == .cancelled {
                throw CancellationError()
            } catch {
                failure = "\(error)"
            }
            try await recordError(failure, on: webhook)
            if attempt == attempts { break }
            try await core.time.sleep(for: .seconds(wait))
            wait = min(wait * 2, 60)
        }
        core.logger.warning("telegram webhook of bot \(bot): update \(update.updateId) given up after \(attempts) tries")
    }

    /// Keeps the last error with the webhook, unless the bot changed its webhook meanwhile.
    private func recordError(_ message: String, on webhook: TelegramWebhook) async throws {
        guard let record = try await core.store.telegramBot(bot), var current = TelegramWebhook.decode(record.webhook),
            current.url == webhook.url
        else { throw CancellationError() }
        current.lastErrorDate = core.now().milliseconds / 1000
        current.lastErrorMessage = String(message.prefix(256))
        try await core.store.setTelegramWebhook(bot, current.encoded)
    }
}

/// Waiting for a bot's feed to pass a position, through the event hub, with no request:
/// parked under an id of its own (the bot's id negated, which no login has).
enum TelegramFeedWait {
    static func next(core: ServerServices, bot: UserID, after position: Int64) async {
        let waiter = Mutex<(id: UInt64?, cancelled: Bool)>((nil, false))
        let tokenID = -bot.rawValue
        await withTaskCancellationHandler {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                // The hub calls back exactly once, whatever ends the wait.
                let id = core.hub.park(tokenID: tokenID, userID: bot, after: position, timeout: 50) { _ in done.resume() }
                let cancelled = waiter.withLock { state -> Bool in
                    state.id = id
                    return state.cancelled
                }
                if cancelled { core.hub.cancel(tokenID: tokenID, waiterID: id) }
            }
        } onCancel: {
            let id = waiter.withLock { state -> UInt64? in
                state.cancelled = true
                return state.id
            }
            if let id { core.hub.cancel(tokenID: tokenID, waiterID: id) }
        }
    }
}
