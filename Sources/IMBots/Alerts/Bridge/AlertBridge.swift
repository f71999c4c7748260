import Lifecycle

/// The alert bridge: for every bot with `webhooks:`, the service that serves them on the
/// runner's listener, turns stored alerts into one living message per alert group, and
/// answers the chat commands of silences and acknowledgements (docs/alerts.md).
public struct AlertBridge: BotServiceMaker {
    public init() {}

    public func makeService(for bot: BotHandle) -> (any Service)? {
        guard !bot.definition.webhooks.isEmpty else { return nil }
        let service = AlertService(parts: bot.parts, outbox: bot.outbox)
        bot.parts.taps.add(AlertCommands(parts: bot.parts, desk: service.desk))
        return service
    }
}
