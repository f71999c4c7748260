import IMProtocol

/// The Dialogue screen: paging, scrolling, the unread divider, sending and replies.
extension ChatModel {
    /// Opens a conversation and asks for its latest page.
    mutating func openDialogue(
        _ key: DialogueKey, kind: ConversationKind, title: String, readMarker: Int64, unread: Int
    ) -> [ChatEffect] {
        if screen != .dialogue { dialogueReturn = screen }
        dialogue = DialogueState(key: key, kind: kind, title: title, readMarker: readMarker, unread: unread)
        screen = .dialogue
        var commands: [ChatEffect] = [.loadHistory(key, before: nil, limit: DialogueState.pageSize)]
        if case .group(let name) = key.address { commands.append(.loadMembers(group: name)) }
        return commands
    }

    mutating func closeDialogue() {
        dialogue = nil
        screen = dialogueReturn
    }

    /// The dialogue's lines at the current width.
    func lines(_ dialogue: DialogueState) -> [DialogueLayout.Line] {
        DialogueLayout.lines(dialogue, me: myName, width: columns, text: text, time: time)
    }

    var messageRows: Int { DialogueLayout.messageRows(screenRows: rows) }

    func maxScroll(_ dialogue: DialogueState) -> Int { max(0, lines(dialogue).count - messageRows) }

    func clampScroll(_ dialogue: inout DialogueState) {
        dialogue.scroll = min(max(dialogue.scroll, 0), maxScroll(dialogue))
        if dialogue.scroll == 0 { dialogue.newBelow = 0 }
    }

    mutating func dialogueKey(_ key: Key) -> [ChatEffect] {
        guard var state = dialogue else {
            screen = dialogueReturn
            return []
        }
        state.notice = nil
        var commands: [ChatEffect] = []
        if let message = state.confirmingDelete {
            // "Delete for everyone?" takes the next key: y deletes, any other keeps it.
            state.confirmingDelete = nil
            if key == .character("y") || key == .character("Y") {
                commands.append(.deleteMessage(state.key, message.id))
            } else {
                state.notice = "Not deleted."
            }
            dialogue = state
            return commands
        }
        // Keys that scroll whatever has the focus.
        switch key {
        case .pageUp: commands += scroll(&state, by: messageRows - 1)
        case .pageDown: commands += scroll(&state, by: -(messageRows - 1))
        case .wheelUp: commands += scroll(&state, by: 3)
        case .wheelDown: commands += scroll(&state, by: -3)
        default:
            switch state.focus {
            case .compose: commands += composeKey(key, &state)
            case .messages: commands += selectKey(key, &state)
            }
        }
        guard dialogue != nil, screen == .dialogue else { return commands }
        dialogue = state
        return commands + followUp()
    }

    private mutating func composeKey(_ key: Key, _ state: inout DialogueState) -> [ChatEffect] {
        switch key {
        case .enter:
            if state.editing != nil { return submitEdit(&state) }
            if case .removed? = state.posting {
                state.notice = "You are no longer in this group: nothing can be sent here."
                return []
            }
            let clientID = nextClientID()
            guard let send = state.queueSend(clientID: clientID) else { return [] }
            return [.send(state.key, text: send.text, replyTo: send.replyTo, clientID: send.clientID)]
        case .escape:
            if state.editing != nil {
                state.finishEditing()
            } else if state.replyTo != nil {
                state.replyTo = nil
            } else {
                dialogue = state
                closeDialogue()
            }
        case .tab:
            state.focus = .messages
            state.selected = lines(state).last { $0.entry != nil }?.entry
        case .end where state.compose.isEmpty:
            state.scroll = 0
        default:
            state.compose.edit(key)
        }
        return []
    }

    private mutating func selectKey(_ key: Key, _ state: inout DialogueState) -> [ChatEffect] {
        switch key {
        case .escape, .tab, .character("i"):
            state.focus = .compose
            state.selected = nil
        case .up, .character("k"): return select(&state, step: -1)
        case .down, .character("j"): return select(&state, step: 1)
        case .home, .character("g"):
            state.scroll = maxScroll(state)
            state.selected = lines(state).first { $0.entry != nil }?.entry
            return loadOlderIfAtTop(&state)
        case .end, .character("G"):
            state.scroll = 0
            state.selected = lines(state).last { $0.entry != nil }?.entry
        case .character("u"):
            return jumpToFirstUnread(&state)
        case .character("e"):
            guard let message = state.selectedMessage(allowing: .edit, me: myName) else {
                if state.selected != nil { state.notice = "Only your own messages can be edited." }
                return []
            }
            state.beginEditing(message)
        case .character("d"), .delete:
            guard let message = state.selectedMessage(allowing: .delete, me: myName) else {
                if state.selected != nil {
                    state.notice = state.kind == .group
                        ? "Only your own messages can be deleted (and, by the group's admins, anyone's)."
                        : "Only your own messages can be deleted."
                }
                return []
            }
            state.confirmingDelete = message
        case .character("r"), .enter:
            let actions = state.actions(for: state.selected, me: myName)
            if key == .enter, actions.contains(.retry), case .pending(let clientID)? = state.selected,
                let send = state.retry(clientID)
            {
                return [.send(state.key, text: send.text, replyTo: send.replyTo, clientID: send.clientID)]
            }
            guard actions.contains(.reply), case .message(let seq)? = state.selected,
                let message = state.messages.first(where: { $0.seq == seq })
            else {
                if state.selected != nil { state.notice = "Only a chat message can be replied to." }
                return []
            }
            state.replyTo = message
            state.focus = .compose
            state.selected = nil
        default:
            break
        }
        return []
    }

    /// Sends the edited text (an unchanged one only ends editing).
    private func submitEdit(_ state: inout DialogueState) -> [ChatEffect] {
        guard let message = state.editing else { return [] }
        var text = state.compose.text
        while text.last == "\n" || text.last == " " { text.removeLast() }
        guard !text.isEmpty else {
            state.notice = "An edit cannot be empty: Esc keeps the message; d on it deletes it."
            return []
        }
        state.finishEditing()
        return text == message.text ? [] : [.editMessage(state.key, message.id, text: text)]
    }

    /// Moves the selection to the previous or next entry and scrolls it into view.
    private mutating func select(_ state: inout DialogueState, step: Int) -> [ChatEffect] {
        let all = lines(state)
        var entries: [DialogueLayout.Entry] = []
        for line in all { if let entry = line.entry, entries.last != entry { entries.append(entry) } }
        guard !entries.isEmpty else { return [] }
        let current = state.selected.flatMap { entries.firstIndex(of: $0) } ?? entries.count
        let next = min(max(current + step, 0), entries.count - 1)
        state.selected = entries[next]
        // Scroll so that the entry's lines are on screen.
        guard let first = all.firstIndex(where: { $0.entry == entries[next] }),
            let last = all.lastIndex(where: { $0.entry == entries[next] })
        else { return [] }
        let bottom = all.count - state.scroll  // one past the last visible line
        let top = bottom - messageRows
        if first < top { state.scroll = all.count - first - messageRows }
        if last >= bottom { state.scroll = all.count - last - 1 }
        clampScroll(&state)
        return next == 0 ? loadOlderIfAtTop(&state) : []
    }

    /// Scrolls up (positive) or down; at the top, asks for the next older page.
    private mutating func scroll(_ state: inout DialogueState, by lines: Int) -> [ChatEffect] {
        state.scroll += lines
        clampScroll(&state)
        return lines > 0 ? loadOlderIfAtTop(&state) : []
    }

    private mutating func loadOlderIfAtTop(_ state: inout DialogueState) -> [ChatEffect] {
        guard state.scroll >= maxScroll(state), state.beginLoadingOlder() else { return [] }
        return [.loadHistory(state.key, before: state.nextBefore, limit: DialogueState.pageSize)]
    }

    /// Puts the "new" divider at the top of the screen, loading older pages first while
    /// the first unread message is older than the loaded ones.
    private mutating func jumpToFirstUnread(_ state: inout DialogueState) -> [ChatEffect] {
        guard state.unreadAtOpen > 0 else {
            state.notice = "No unread messages."
            return []
        }
        let oldest = state.messages.first?.seq ?? 0
        if state.loaded, !state.reachedStart, oldest > state.readMarker + 1 {
            state.jumpPending = true
            guard state.beginLoadingOlder() else { return [] }
            return [.loadHistory(state.key, before: state.nextBefore, limit: Limits.pageSize.upperBound)]
        }
        state.jumpPending = false
        let all = lines(state)
        guard let index = all.firstIndex(where: \.isUnreadDivider) else {
            state.notice = "No unread messages."
            return []
        }
        state.scroll = all.count - index - messageRows
        clampScroll(&state)
        return []
    }

    mutating func applyHistory(_ key: DialogueKey, _ page: MessagePage, before: Int64?) -> [ChatEffect] {
        guard var state = dialogue, state.key.matches(key) else { return [] }
        let first = !state.loaded
        // The scroll counts lines from the bottom, so older lines going in above leave
        // the same lines on screen.
        state.apply(page, before: before)
        var commands: [ChatEffect] = []
        if (first && state.unreadAtOpen > 0) || state.jumpPending { commands += jumpToFirstUnread(&state) }
        clampScroll(&state)
        dialogue = state
        return commands + followUp()
    }

    /// A message for a conversation (live, or a send's answer).
    mutating func receive(_ message: Message, key: DialogueKey) -> [ChatEffect] {
        var seen = false
        if var state = dialogue, state.key.matches(key) || state.key.id == message.conversationID {
            let linesBefore = lines(state).count
            if state.receive(message) {
                if state.scroll > 0 {
                    state.scroll += lines(state).count - linesBefore
                    if message.type == .chat, message.sender.lowercased() != myName { state.newBelow += 1 }
                }
            }
            seen = screen == .dialogue && state.scroll == 0 && interruption == nil
            clampScroll(&state)
            dialogue = state
        }
        var commands: [ChatEffect] = []
        if !sessions.apply(message, me: myName, seen: seen) { commands.append(.loadConversation(key.address)) }
        return commands + followUp()
    }

    /// The read marker due for what is now on screen: the newest message, once the
    /// bottom is in view (and no jump to older unread messages is under way).
    private func readMarkerDue(_ state: DialogueState) -> (seq: Int64, key: DialogueKey)? {
        guard screen == .dialogue, interruption == nil, state.loaded, state.scroll == 0, !state.jumpPending,
            let newest = state.newest, newest.seq > state.readSent
        else { return nil }
        return (newest.seq, state.key)
    }

    /// After any change to the open dialogue: sends the read marker that is due.
    mutating func followUp() -> [ChatEffect] {
        guard let state = dialogue, let (seq, key) = readMarkerDue(state) else { return [] }
        dialogue?.readSent = seq
        if let id = key.id ?? state.newest?.conversationID { _ = sessions.markRead(id, seq: seq) }
        return [.markRead(key, seq: seq)]
    }
}
