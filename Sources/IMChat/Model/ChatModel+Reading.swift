import IMProtocol

/// Counts that agree: the read marker goes to the newest message on screen (a
/// conversation read part-way counts down), and the Sessions row, the "N new below"
/// banner and `u` follow it, here and from the other clients of the account.
extension ChatModel {
    /// The newest message with a line on screen.
    func newestOnScreen(_ state: DialogueState) -> Int64? {
        let all = lines(state)
        let bottom = all.count - min(state.scroll, max(0, all.count - messageRows))
        let top = max(0, bottom - messageRows)
        var newest: Int64?
        for line in all[top..<bottom] {
            if case .message(let seq)? = line.entry { newest = max(newest ?? seq, seq) }
        }
        return newest
    }

    /// The read marker due for what is now on screen: the newest message that is on
    /// screen (not only once the bottom is in view: a conversation read part-way counts
    /// down), unless a jump to older unread messages is under way.
    private func readMarkerDue(_ state: DialogueState) -> (seq: Int64, key: DialogueKey)? {
        guard screen == .dialogue, interruption == nil, confirmation == nil || confirmation == .quit, state.loaded,
            !state.jumpPending, let seen = newestOnScreen(state), seen > state.readSent
        else { return nil }
        return (seen, state.key)
    }

    /// After any change to the open dialogue: sends the read marker that is due, and
    /// counts the Sessions row down to what is still unseen.
    mutating func followUp() -> [ChatEffect] {
        guard let state = dialogue, let (seq, key) = readMarkerDue(state) else { return [] }
        dialogue?.readSent = seq
        if let id = key.id ?? state.newest?.conversationID {
            sessions.markRead(id, seq: seq, unread: state.unseen(after: seq, me: myName))
        }
        return [.markRead(key, seq: seq)]
    }
}
