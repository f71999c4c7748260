import IMProtocol

/// Notices: replies only this user sees (a bot's answer to them alone). They show in the
/// dialogue among its messages, dimmed and marked, and count as nothing unread.
extension ChatModel {
    /// The notices kept per conversation.
    public static let noticesKept = 50

    /// The notices shown in `dialogue`.
    func notices(in dialogue: DialogueState) -> [Notice] {
        dialogue.key.id.flatMap { notices[$0] } ?? []
    }

    /// A notice arrived: it joins its conversation's, and the open dialogue shows it in
    /// place (the lines on screen stay when scrolled up); out of sight, the status row
    /// says where it is.
    mutating func receive(_ notice: Notice, key: DialogueKey?) {
        var kept = notices[notice.conversationID] ?? []
        guard !kept.contains(where: { $0.id == notice.id }) else { return }
        let before = dialogue.map { lines($0).count }
        kept.append(notice)
        kept.sort { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        notices[notice.conversationID] = Array(kept.suffix(Self.noticesKept))
        if var state = dialogue, state.key.id == notice.conversationID, let before {
            if state.scroll > 0 { state.scroll += lines(state).count - before }
            clampScroll(&state)
            dialogue = state
            if screen == .dialogue { return }
        }
        let place = key.map { " in \($0.address)" } ?? ""
        status = ("\(displayName(notice.sender)) sent you a notice\(place) (only you can see it)", false)
    }
}
