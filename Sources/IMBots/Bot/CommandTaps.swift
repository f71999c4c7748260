import IMProtocol
import Synchronization

/// A part of a bot that answers some chat commands itself, before the rules see them:
/// the alert bridge's `/silence`, `/confirm`, `/silences`, `/unsilence` and `/ack`.
///
/// A message it takes goes to its conversation's lane (journaled as taken over, so a
/// restart handles it again, and in order with the conversation's other events); the
/// lane then calls ``handle(_:role:)`` and sends the replies it returns.
protocol CommandTap: Sendable {
    /// Whether the tap answers this message (a command of its own, for this bot).
    func takes(_ message: Message) -> Bool
    /// Answers the message: does what it asks and returns the replies to send (journaled
    /// and queued by ``BotRun``, as any way in's).
    /// - Parameter role: the sender's role in the message's group, when it is in one.
    func handle(_ event: Event, role: MemberRole?) async -> [OutgoingMessage]
}

/// The taps of one bot, added by its services when they are made.
final class CommandTaps: Sendable {
    private let taps = Mutex<[any CommandTap]>([])

    /// Adds a tap; taps added earlier are asked first.
    func add(_ tap: any CommandTap) {
        taps.withLock { $0.append(tap) }
    }

    /// The tap that takes `event`: a message someone other than the bot sent.
    func tap(for event: Event, bot: BotContext.Identity) -> (any CommandTap)? {
        guard event.type == .message, let message = event.message, message.type != .system,
              message.sender.lowercased() != bot.username, bot.id == nil || message.senderID != bot.id
        else { return nil }
        return taps.withLock { taps in taps.first { $0.takes(message) } }
    }
}
