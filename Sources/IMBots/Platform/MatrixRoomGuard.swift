import IMClient
import IMProtocol
import Synchronization

/// What a Switchboard server enforces in a group and a Matrix homeserver does not, done
/// by a Matrix bot's runner before the rules see an event:
///
/// - **restricted newcomers** (`new_members: restricted` on a `join:` entry): a member who
///   joins the room on their own (not answering an invitation, which is how an approved
///   knock comes in) is muted at once, a power level below what messages need, until a
///   `verify` answer or a moderator lifts it. They may post in the moment before the bot
///   sees their join; the rules' `verify` then asks its question.
/// - **slow mode** (`slow_mode:` actions, kept in the journal): a message from a member
///   below the moderator level (50) sent within the interval of their previous one is
///   redacted, and the member told once, by a notice in their direct chat with the bot.
///   Intervals are measured between the homeserver's timestamps of the messages.
final class MatrixRoomGuard: Sendable {
    let link: MatrixLink
    let parts: BotParts
    private struct Posts {
        /// When each member last posted in each room (`room/user` → ms): in memory, so
        /// after a restart each member's first message is let through; past its bound the
        /// members who posted longest ago are forgotten (their next message passes).
        var last = BoundedCache<Int64>(capacity: MatrixRoomGuard.remembered, lifetime: .infinity)
        /// Members told about the slow mode of a room (`room/user`), each once while
        /// remembered.
        var told = BoundedCache<Bool>(capacity: MatrixRoomGuard.remembered, lifetime: .infinity)
    }

    /// The most members whose last post (and whether they were told) is kept.
    static let remembered = 10_000
    private let posts = Mutex(Posts())

    /// The power level from which a member is a moderator, whom slow mode and the
    /// newcomer restriction leave alone (a room's `kick` and `ban` need it by default).
    static let moderatorLevel = 50

    init(link: MatrixLink, parts: BotParts) {
        self.link = link
        self.parts = parts
    }

    /// Mutes a newcomer of a restricted room who came in on their own.
    func restrictIfNew(_ event: Event, roomID: String) async {
        guard event.type == .memberJoined, event.via == .open, let user = event.user,
              let name = link.name(ofRoom: roomID),
              parts.rules.now.definition.groupSettings[name]?.newMembers == .restricted,
              await link.role(of: user.username, in: .group(name), now: parts.time.seconds) == .member
        else { return }
        do {
            try await link.moderate(.member(.mute, group: name, user: user.username, duration: nil, reason: "a newcomer"))
        } catch {
            parts.logger.warning("bot \(parts.name): cannot restrict the newcomer \(user.username) in group:\(name): "
                                 + error.message)
        }
    }

    /// Whether a message breaks its room's slow mode: then it is redacted, and its sender
    /// told once (the notice is returned, for the journal and the outbox); nil when it is
    /// for the rules.
    func slowModeBreach(_ event: Event, roomID: String) async -> [OutgoingMessage]? {
        guard event.type == .message, let message = event.message, let conversation = event.conversation,
              let seconds = link.slowMode(ofRoom: roomID), seconds > 0 else { return nil }
        let key = roomID + "/" + message.sender
        let at = event.at.milliseconds
        let previous = posts.withLock { $0.last.any(key) }
        guard let previous, at - previous < Int64(seconds) * 1000 else {
            posts.withLock { $0.last.store(max(at, $0.last.any(key) ?? at), for: key, at: Double(at) / 1000) }
            return nil
        }
        if await link.role(of: message.sender, in: conversation.address, now: parts.time.seconds) != .member {
            return nil
        }
        do {
            try await link.moderate(.delete(message.id, in: conversation.address))
        } catch {
            parts.logger.warning("bot \(parts.name): cannot redact a message sent in slow mode: \(error.message)")
            return nil
        }
        let first = posts.withLock { posts in
            guard posts.told.any(key) == nil else { return false }
            posts.told.store(true, for: key, at: Double(at) / 1000)
            return true
        }
        guard first, let sender = event.user else { return [] }
        var notice = OutgoingMessage(
            to: conversation.address,
            text: "This room is in slow mode: one message every \(ConfigDuration(seconds: Double(seconds))). "
                + "Your message was removed; please wait before you post again.",
            clientMessageID: IdempotencyKey.make(bot: parts.name, position: event.position, rule: "slow_mode",
                                                 actionIndex: 0),
            rule: "slow_mode", action: .notice)
        notice.notice = NoticeRecipient(conversation: conversation.id, user: sender.id)
        return [notice]
    }
}
