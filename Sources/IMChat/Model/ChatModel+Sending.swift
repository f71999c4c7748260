import IMProtocol

/// Enter in the input line: a slash command, or text that goes into the outbox, split
/// in parts (after asking) when it is longer than one message may be.
extension ChatModel {
    /// Enter in the open dialogue's input line.
    mutating func submit() -> [ChatEffect] {
        guard var state = dialogue else { return [] }
        if state.editing != nil {
            let effects = submitEdit(&state)
            dialogue = state
            return effects
        }
        var line = state.compose.text
        while let last = line.last, last.isWhitespace { line.removeLast() }
        guard !line.isEmpty else { return [] }
        switch SlashCommand.parse(line) {
        case .success(let command)?:
            state.compose.set("")
            dialogue = state
            return run(command)
        case .failure(let unknown)? where !talkingToABot:
            confirmation = .unknownCommand(word: unknown.word, line: line)
            return []
        case .failure?, nil:
            // A bot takes its commands as messages (`/hours` to the help desk).
            break
        }
        if case .removed? = state.posting {
            dialogue?.notice = "You are no longer in this group: nothing can be sent here."
            return []
        }
        let text = SlashCommand.literal(line)
        let parts = MessageSplitter.split(text)
        if parts.count > 1 {
            confirmation = .split(text: text, parts: parts.count)
            return []
        }
        return sendTyped(parts)
    }

    /// Whether the open dialogue is a direct conversation with a bot account (one of the
    /// contacts): a `/word` typed there that is no command of this client is the bot's.
    var talkingToABot: Bool {
        guard case .user(let name)? = dialogue?.key.address else { return false }
        return contacts.users.contains { $0.isBot && $0.username.lowercased() == name }
    }

    /// Puts `parts` (one message, or the parts of a long one) into the outbox for the open
    /// dialogue, the reply going with the first; the input line empties.
    mutating func sendTyped(_ parts: [String]) -> [ChatEffect] {
        guard var state = dialogue else { return [] }
        for (index, part) in parts.enumerated() {
            outbox.add(part, to: state.key, replyTo: index == 0 ? state.replyTo?.id : nil, clientID: nextClientID())
        }
        state.compose.set("")
        state.replyTo = nil
        state.scroll = 0
        dialogue = state
        if parts.count > 1 { status = ("sending it as \(parts.count) messages", false) }
        return dispatchSends()
    }

    /// Puts a message for any conversation into the outbox (`/msg`).
    mutating func queue(_ text: String, to key: DialogueKey) -> [ChatEffect] {
        for part in MessageSplitter.split(text) { outbox.add(part, to: key, replyTo: nil, clientID: nextClientID()) }
        return dispatchSends()
    }

    /// The sends that may start now (one per conversation at a time, in order; none while
    /// the connection is away, when they wait as queued).
    mutating func dispatchSends() -> [ChatEffect] {
        outbox.dispatch(online: isOnline).map {
            .send($0.key, text: $0.text, replyTo: $0.replyTo, clientID: $0.clientID)
        }
    }

    /// A send's answer: stored, or why not.
    mutating func sent(_ key: DialogueKey, clientID: String, _ message: Message) -> [ChatEffect] {
        // A post that went through lifts whatever held posts back.
        if dialogue?.key.matches(key) == true { dialogue?.posting = nil }
        outbox.delivered(clientID: clientID)
        return receive(message, key: key) + dispatchSends()
    }

    mutating func sendFailed(
        _ key: DialogueKey, clientID: String, reason: String, block: PostingBlock?, unreachable: Bool
    ) -> [ChatEffect] {
        if unreachable {
            // The server is away: the message waits, queued, and goes when it is back.
            outbox.unreachable(clientID: clientID)
            return isOnline ? [.wake(after: 5)] : []
        }
        outbox.refused(clientID: clientID, reason: reason)
        if let block, dialogue?.key.matches(key) == true { dialogue?.posting = block }
        return dispatchSends()
    }
}
