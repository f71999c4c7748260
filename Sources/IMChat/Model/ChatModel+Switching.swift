import IMProtocol

/// Going from one conversation to another without going back: Alt-1…9 (the Sessions
/// list's rows, as numbered in the activity line), Ctrl-N/Ctrl-P (the next and previous
/// row), Alt-A (the next with new messages); each conversation keeps its unsent draft.
extension ChatModel {
    /// The conversations with new messages other than the open one, with the Alt number
    /// that opens each (nil past 9): the Dialogue's activity line.
    public var hotlist: [(number: Int?, row: Conversation)] {
        sessions.rows.enumerated().compactMap { index, row in
            guard row.unread > 0, dialogue?.key.id != row.id else { return nil }
            return (index < 9 ? index + 1 : nil, row)
        }
    }

    /// The effects of a switching key, or nil when `key` is not one here.
    mutating func switchKey(_ key: Key) -> [ChatEffect]? {
        switch key {
        case .alt(let character) where ("1"..."9").contains(character):
            guard let number = character.wholeNumberValue, number <= sessions.rows.count else {
                status = ("no conversation \(character): Sessions lists \(Plural.count(sessions.rows.count, "conversation"))", true)
                return []
            }
            return openRow(sessions.rows[number - 1])
        case .alt("a"):
            guard let next = hotlist.first?.row else {
                status = ("no other conversation has new messages", false)
                return []
            }
            return openRow(next)
        case .control("n") where screen == .dialogue, .control("p") where screen == .dialogue:
            guard !sessions.rows.isEmpty else { return [] }
            let current = dialogue.flatMap { open in sessions.rows.firstIndex { open.key.id == $0.id } }
            let step = key == .control("n") ? 1 : -1
            let next = current.map { ($0 + step + sessions.rows.count) % sessions.rows.count } ?? (step > 0 ? 0 : sessions.rows.count - 1)
            return openRow(sessions.rows[next])
        default:
            return nil
        }
    }

    /// Opens the conversation of a Sessions row.
    mutating func openRow(_ row: Conversation) -> [ChatEffect] {
        sessions.selectedID = row.id
        sessions.waitingSelected = nil
        if dialogue?.key.id == row.id, screen == .dialogue { return [] }
        return openDialogue(
            DialogueKey(address: row.address, id: row.id), kind: row.kind, title: row.displayName,
            readMarker: row.lastReadSeq, unread: row.unread)
    }

    /// Where a conversation's draft is kept.
    static func draftKey(_ key: DialogueKey) -> String { key.address.description }

    /// Keeps the open dialogue's input line (the text before an edit took it over) and reply.
    mutating func stashDraft(_ state: DialogueState) {
        let text = state.editing != nil ? state.draft : state.compose.text
        let key = Self.draftKey(state.key)
        if text.isEmpty, state.replyTo == nil {
            drafts[key] = nil
        } else {
            drafts[key] = Draft(text: text, replyTo: state.replyTo)
        }
    }

    /// Gives a dialogue just opened its draft back.
    mutating func restoreDraft(_ state: inout DialogueState) {
        guard let draft = drafts.removeValue(forKey: Self.draftKey(state.key)) else { return }
        state.compose.set(draft.text)
        state.replyTo = draft.replyTo
    }
}
