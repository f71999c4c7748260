import IMClient
import IMProtocol
import Synchronization

/// The runner's `BotEffects` for one event: messages are collected (within the loop
/// guard) and handed, with the event's other effects, to the journal and then the
/// outbox once the event's actions are done; profile changes go to the server at once,
/// `http` actions through the runner's `HTTPActionClient`.
final class ClientEffects: QueuingEffects {
    private let client: IMClient
    private let httpClient: HTTPActionClient
    private let loopGuard: LoopGuard
    private let decided = Mutex<[OutgoingMessage]>([])
    /// The bot's strikes and cases.
    let moderation: ModerationBook?
    /// A Matrix bot's homeserver, where its moderation goes.
    private let matrix: MatrixLink?

    init(client: IMClient, http: HTTPActionClient, loopGuard: LoopGuard, moderation: ModerationBook? = nil,
         matrix: MatrixLink? = nil) {
        self.client = client
        self.matrix = matrix
        self.httpClient = http
        self.loopGuard = loopGuard
        self.moderation = moderation
    }

    /// The messages the event's actions decided to send, in order.
    var messages: [OutgoingMessage] { decided.withLock { $0 } }

    func send(_ message: OutgoingMessage) async throws -> Message? {
        // Mod-log lines answer nobody, so they cannot loop; a raid's cases must all be logged.
        guard message.action == .report || loopGuard.allow(message.to) else {
            throw ActionSuppressed(message: "loop guard: too many messages into \(message.to) in the last minute")
        }
        decided.withLock { $0.append(message) }
        // Sent by the outbox; the stored message is not known here.
        return nil
    }

    /// On Matrix the nickname is the display name (what Matrix profiles have no place
    /// for, a signature, is logged once).
    func updateProfile(_ update: ProfileUpdate) async throws {
        if let matrix {
            try await matrix.updateProfile(update)
        } else {
            _ = try await client.updateProfile(update)
        }
    }

    func http(_ request: TransportRequest) async throws -> TransportResponse {
        try await httpClient.send(request)
    }

    /// Carries the act out at once, through the client core (the message that caused it
    /// must not stay visible while the outbox works through a queue).
    func moderate(_ act: ModerationAct) async throws {
        try await ModerationCalls.perform(act, with: client, matrix: matrix)
    }
}

/// A send the loop guard held back.
struct ActionSuppressed: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
