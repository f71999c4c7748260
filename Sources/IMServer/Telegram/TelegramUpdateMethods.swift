import Foundation
import HTTPServer
import IMProtocol
import IMStore

/// Getting updates: `getUpdates` (a long-poll over the bot's feed) or a webhook.
enum TelegramUpdateMethods {
    static let methods: [TelegramMethod] = [
        TelegramMethod("getUpdates", getUpdates),
        TelegramMethod("setWebhook", TelegramWebhookMethods.setWebhook),
        TelegramMethod("deleteWebhook", TelegramWebhookMethods.deleteWebhook),
        TelegramMethod("getWebhookInfo", TelegramWebhookMethods.getWebhookInfo),
    ]

    static let webhookActive = TelegramError(
        409, "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first")
    static let replaced = TelegramError(
        409, "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running")

    /// `offset` confirms every update before it (kept on the server, as Telegram keeps
    /// it; a negative one forgets everything pending), `limit` 1-100, `timeout` seconds
    /// to wait for one (up to the server's longest poll), `allowed_updates` the kinds
    /// wanted from now on. One poll per bot: a new one ends the waiting one with 409.
    static func getUpdates(_ call: TelegramCall) async throws -> Response {
        let core = call.core
        let limit = Int(min(max(try call.parameters.int("limit") ?? 100, 1), 100))
        let timeout = Double(min(max(try call.parameters.int("timeout") ?? 0, 0), Int64(core.configuration.maxPollTimeout)))
        let record = try await call.botRecord()
        if record.webhook != nil { throw webhookActive }
        var settings = TelegramBotSettings.decode(record.settings)
        if let allowed = try call.parameters.decode("allowed_updates", as: [String].self), allowed != settings.allowedUpdates {
            settings.allowedUpdates = allowed
            try await core.store.setTelegramSettings(call.bot, settings.encoded)
        }
        var first = record.acknowledged
        if let offset = try call.parameters.int("offset"), offset != 0 {
            let confirmed = offset < 0 ? TelegramUpdateID.first(of: core.store.committedPosition + 1) : offset
            if confirmed > first {
                first = confirmed
                try await core.store.acknowledgeTelegramUpdates(call.bot, before: first)
            }
        }
        let claim = try await core.claimPoll(call.session)
        core.hub.end(tokenID: call.session.tokenID, with: .replaced)
        let poll = TelegramPoll(
            call: call, first: first, limit: limit, settings: settings, deadline: core.monotonic() + timeout, claim: claim)
        return try await poll.answerOrPark()
    }
}

/// A waiting `getUpdates`: parked with the event hub, as a `/v1/events` poll is, and
/// answered when the bot's feed has an update for it or its time runs out.
final class TelegramPoll: Sendable {
    let core: ServerServices
    let session: Session
    let request: Request
    let first: Int64
    let limit: Int
    let settings: TelegramBotSettings
    let deadline: Double
    let claim: Int64

    init(call: TelegramCall, first: Int64, limit: Int, settings: TelegramBotSettings, deadline: Double, claim: Int64) {
        core = call.core
        session = call.session
        request = call.request
        self.first = first
        self.limit = limit
        self.settings = settings
        self.deadline = deadline
        self.claim = claim
    }

    /// Reads; answers when there are updates or no time to wait, else parks.
    func answerOrPark() async throws -> Response {
        let batch = try await read()
        if !batch.updates.isEmpty || core.monotonic() >= deadline { return try TelegramJSON.success(batch.updates) }
        guard let deferred = request.deferResponse() else { return try TelegramJSON.success([TGUpdate]()) }
        park(after: batch.readThrough, deferred)
        return deferred.response
    }

    private func read() async throws -> TelegramUpdateReader.Batch {
        let batch = try await TelegramUpdateReader(core: core, bot: session.userID)
            .read(from: first, limit: limit, settings: settings)
        if batch.nothingBefore > first {
            try await core.store.acknowledgeTelegramUpdates(session.userID, before: batch.nothingBefore)
        }
        return batch
    }

    private func park(after position: Int64, _ deferred: DeferredResponse) {
        let waiter = core.hub.park(
            tokenID: session.tokenID, userID: session.userID, after: position, timeout: deadline - core.monotonic(),
            claim: claim
        ) { [self] wake in
            switch wake {
            case .ready, .published:
                Task { await self.woke(deferred) }
            case .timedOut, .cancelled:
                send(try? TelegramJSON.success([TGUpdate]()), deferred)
            case .replaced:
                send(TelegramUpdateMethods.replaced.response, deferred)
            case .loggedOut, .kickedOut:
                send(TelegramError(401, "Unauthorized: this login has ended").response, deferred)
            }
        }
        deferred.onCancel { [core, session] in core.hub.cancel(tokenID: session.tokenID, waiterID: waiter) }
    }

    /// Reads again after a wake: answers, or parks again when nothing was for the bot.
    private func woke(_ deferred: DeferredResponse) async {
        do {
            if !core.authenticator.isStillValid(session) {
                _ = try await core.authenticator.authenticate(request.headers["Authorization"] ?? tokenHeader())
            }
            let batch = try await read()
            if batch.updates.isEmpty, core.monotonic() < deadline {
                park(after: batch.readThrough, deferred)
                return
            }
            send(try TelegramJSON.success(batch.updates), deferred)
        } catch {
            send(TelegramGateway.failure(error, core: core, request: request, label: "/bot{token}/getUpdates"), deferred)
        }
    }

    /// The path's token as a bearer header, to check the login again.
    private func tokenHeader() -> String {
        let tail = request.path.dropFirst("/bot".count)
        return "Bearer \(tail.prefix { $0 != "/" })"
    }

    private func send(_ response: Response?, _ deferred: DeferredResponse) {
        let response = response ?? TelegramError(500, "Internal Server Error").response
        core.metrics.recordRequest(method: request.method, route: "/bot{token}/getUpdates", status: response.status)
        deferred.send(response)
    }
}
