import IMClient
import IMProtocol
import Synchronization

/// The effects of a webhook rule's actions: messages and incidents are collected for the
/// alert desk, which journals them with what they change and queues them as alerts (never
/// shed, ahead of replies). Nothing else can run for a webhook (`check` refuses it).
final class AlertEffects: QueuingEffects {
    private struct Collected {
        var messages: [OutgoingMessage] = []
        var incidents: [IncidentRequest] = []
    }

    private let collected = Mutex(Collected())

    /// The messages of `send` actions, in order.
    var messages: [OutgoingMessage] { collected.withLock { $0.messages } }
    /// The `incident` actions' requests, in order.
    var incidents: [IncidentRequest] { collected.withLock { $0.incidents } }

    func send(_ message: OutgoingMessage) async throws -> Message? {
        collected.withLock { $0.messages.append(message) }
        return nil
    }

    func incident(_ request: IncidentRequest) async throws {
        collected.withLock { $0.incidents.append(request) }
    }

    func updateProfile(_ update: ProfileUpdate) async throws {
        throw NotForWebhooks(action: "update_profile")
    }

    func http(_ request: TransportRequest) async throws -> TransportResponse {
        throw NotForWebhooks(action: "http")
    }

    private struct NotForWebhooks: Error, CustomStringConvertible {
        var action: String
        var description: String { "'\(action)' does not run for webhooks" }
    }
}
