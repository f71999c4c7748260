import IMClient
import IMProtocol

/// What moderation notes about every feed event before the rules see it: the events
/// `quiet` triggers wait for, newcomers who leave before verifying, moderators joining
/// the mod-log (made its admins, so `from: {role: admin}` lets them `/undo`), and a
/// pending newcomer's answer to their challenge (which it handles itself, instead of the
/// rules).
struct ModerationObserver: Sendable {
    let parts: BotParts

    private var book: ModerationBook { parts.moderation.book }
    /// Wrong answers that get a hint.
    static let hints = 3

    /// Re-arms the `quiet` triggers that watch this kind of event in its conversation, ends
    /// the verification of a member who left, and makes a moderator (by account, never by
    /// name) who joined the mod-log or a moderated group its admin, able to post.
    func observe(_ event: Event, _ definition: BotDefinition) async {
        guard let conversation = event.conversation else { return }
        if event.type == .memberJoined, let user = event.user, book.isModerator(id: user.id.rawValue),
           case .group(let group) = conversation.address, ModeratorSetup.groups(of: definition).contains(group) {
            do {
                try await ModeratorSetup.makeModerator(user.username, member: nil, in: group, client: parts.client)
            } catch {
                parts.logger.warning("bot \(parts.name): cannot make moderator \(user.username) an admin of "
                                     + "group:\(group): \(error.message)")
            }
        }
        guard definition.listens(to: conversation) else { return }
        for rule in definition.rules {
            guard let trigger = rule.trigger, trigger.watches(event.type) else { continue }
            book.setQuiet(rule: trigger.id, conversation: conversation,
                          QuietWatch(last: event.at.milliseconds, conversation: conversation))
        }
        if [.memberLeft, .memberKicked, .memberBanned].contains(event.type), let user = event.user,
           case .group(let group) = conversation.address, book.verification(of: user.username)?.group == group.lowercased() {
            book.setVerification(group: group, user: user.username, nil)
        }
    }

    /// The replies to a direct message from a newcomer who owes an answer, after letting
    /// them post when it is right; nil when the message is not such an answer.
    func answer(_ event: Event) async -> [OutgoingMessage]? {
        guard event.type == .message, event.conversation?.kind == .direct, let message = event.message,
              message.type != .system, let pending = book.verification(of: message.sender) else { return nil }
        let words = WordList(phrases: [pending.answer], normalize: true, ignoreCase: true)
        let right = words.firstMatch(in: TextNormalizer.normalized(message.text)) != nil
        let text: String
        if right {
            do {
                try await ModerationCalls.perform(
                    .member(.unmute, group: pending.group, user: pending.user, duration: nil, reason: "verified"),
                    with: parts.client, matrix: parts.matrix)
            } catch {
                // Their answer stays unanswered: a later message of theirs tries again.
                parts.logger.warning("bot \(parts.name): cannot let \(pending.user) post in group:\(pending.group): "
                                     + error.message)
                return []
            }
            book.setVerification(group: pending.group, user: pending.user, nil)
            text = "Thank you! You can post in group:\(pending.group) now."
        } else {
            var again = pending
            again.attempts += 1
            book.setVerification(group: pending.group, user: pending.user, again)
            // A few hints, then silence: the bot is not made to answer a flood.
            guard again.attempts <= Self.hints else { return [] }
            text = "That is not the answer; please read the question again."
        }
        let reply = OutgoingMessage(
            to: .user(message.sender), text: text,
            clientMessageID: IdempotencyKey.make(bot: parts.name, position: event.position, rule: pending.rule, actionIndex: 0),
            replyTo: message.id, rule: pending.rule, action: .verify)
        return [reply]
    }
}
