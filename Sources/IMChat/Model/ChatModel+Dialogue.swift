import IMProtocol

/// The Dialogue screen: paging, scrolling, the unread divider, the input line and
/// selecting messages (sending: `ChatModel+Sending.swift`; slash commands:
/// `ChatModel+Commands.swift`).
extension ChatModel {
    /// Opens a conversation and asks for its latest page; the one open before keeps its draft.
    mutating func openDialogue(
        _ key: DialogueKey, kind: ConversationKind, title: String, readMarker: Int64, unread: Int
    ) -> [ChatEffect] {
        if screen != .dialogue { dialogueReturn = screen }
        if let open = dialogue { stashDraft(open) }
        var state = DialogueState(key: key, kind: kind, title: title, readMarker: readMarker, unread: unread)
        restoreDraft(&state)
        dialogue = state
        screen = .dialogue
        var commands: [ChatEffect] = [.loadHistory(key, before: nil, limit: DialogueState.pageSize)]
        switch key.address {
        case .group(let name): commands.append(.loadMembers(.group, name))
        case .room(let name): commands.append(.loadMembers(.room, name))
        default: break
        }
        return commands
    }

    mutating func closeDialogue() {
        if let open = dialogue { stashDraft(open) }
        dialogue = nil
        screen = dialogueReturn
    }

    /// The dialogue's lines at the current width.
    func lines(_ dialogue: DialogueState) -> [DialogueLayout.Line] {
        DialogueLayout.lines(
            dialogue, pending: outbox.items(for: dialogue.key), notices: notices(in: dialogue), online: isOnline,
            me: myName, width: columns, text: text, time: time, name: displayName)
    }

    /// Rows the input takes: it grows with its text up to a third of the screen.
    public func composeRows(_ dialogue: DialogueState) -> Int {
        let most = max(1, rows / 3)
        return min(most, dialogue.compose.rows(width: max(4, columns - 3), layout: text).rows.count)
    }

    /// Rows of the open dialogue's message area.
    public var messageRows: Int {
        DialogueLayout.messageRows(screenRows: rows, composeRows: dialogue.map(composeRows) ?? 1)
    }

    func maxScroll(_ dialogue: DialogueState) -> Int { max(0, lines(dialogue).count - messageRows) }

    func clampScroll(_ dialogue: inout DialogueState) {
        dialogue.scroll = min(max(dialogue.scroll, 0), maxScroll(dialogue))
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
        if key == .enter, state.focus == .compose {
            dialogue = state
            return submit() + followUp()
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
        clampScroll(&state)
        dialogue = state
        return commands + followUp()
    }

    private mutating func composeKey(_ key: Key, _ state: inout DialogueState) -> [ChatEffect] {
        switch key {
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
        case .up where state.compose.isEmpty && state.editing == nil:
            // Up in an empty input line edits one's last message, as in many chat clients.
            guard let last = state.messages.last(where: {
                $0.type == .chat && $0.deletedAt == nil && $0.sender.lowercased() == myName
            }) else {
                state.notice = "Nothing of yours to edit here."
                return []
            }
            state.beginEditing(last)
        default:
            if state.compose.edit(key), state.compose.refused > 0 {
                state.notice = "The input line holds \(Plural.count(state.compose.limit, "character")): \(Plural.count(state.compose.refused, "character")) did not fit."
            }
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
        case .character("d"), .character("x"), .delete:
            if case .pending(let clientID)? = state.selected {
                // A failed or queued message is dropped here; one under way may be stored already.
                if outbox.discard(clientID: clientID) {
                    state.notice = "Discarded: that message will not be sent."
                    state.selected = lines(state).last { $0.entry != nil }?.entry
                } else {
                    state.notice = "That message is on its way: it cannot be discarded now."
                }
                return []
            }
            guard key != .character("x") else { return [] }
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
            if key == .enter, case .pending(let clientID)? = state.selected {
                guard outbox.retry(clientID: clientID) else { return [] }
                state.notice = "Sending again."
                return dispatchSends()
            }
            guard case .message(let seq)? = state.selected, state.actions(for: state.selected, me: myName).contains(.reply),
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
    func submitEdit(_ state: inout DialogueState) -> [ChatEffect] {
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

    /// Puts the first message not seen yet (after the read marker, someone else's) at the
    /// top of the screen, loading older pages first while it is older than the loaded ones.
    private mutating func jumpToFirstUnread(_ state: inout DialogueState) -> [ChatEffect] {
        let oldest = state.messages.first?.seq ?? 0
        if state.loaded, !state.reachedStart, oldest > state.readSent + 1,
            (sessions.row(state.key.id ?? ConversationID(rawValue: -1))?.unread ?? state.unreadAtOpen) > 0
        {
            state.jumpPending = true
            guard state.beginLoadingOlder() else { return [] }
            return [.loadHistory(state.key, before: state.nextBefore, limit: Limits.pageSize.upperBound)]
        }
        state.jumpPending = false
        guard let target = state.firstUnseen(me: myName) else {
            state.notice = "No unread messages."
            return []
        }
        let all = lines(state)
        guard var index = all.firstIndex(where: { $0.entry == .message(target.seq) }) else { return [] }
        if index > 0, all[index - 1].isUnreadDivider { index -= 1 }
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
        if let id = state.key.id { outbox.learn(id, for: state.key.address) }
        var commands: [ChatEffect] = []
        if (first && state.unreadAtOpen > 0) || state.jumpPending { commands += jumpToFirstUnread(&state) }
        clampScroll(&state)
        dialogue = state
        return commands + followUp()
    }

    /// A message for a conversation (live, or a send's answer).
    mutating func receive(_ message: Message, key: DialogueKey) -> [ChatEffect] {
        if let clientID = message.clientMessageID, message.sender.lowercased() == myName {
            outbox.delivered(clientID: clientID)
        }
        outbox.learn(message.conversationID, for: key.address)
        var onScreen = false
        if var state = dialogue, state.key.matches(key) || state.key.id == message.conversationID {
            let linesBefore = lines(state).count
            if state.receive(message), state.scroll > 0 {
                // Scrolled up: the same lines stay on screen.
                state.scroll += lines(state).count - linesBefore
            }
            clampScroll(&state)
            dialogue = state
            onScreen = screen == .dialogue && state.scroll == 0 && interruption == nil
        }
        var commands: [ChatEffect] = []
        if !sessions.apply(message, me: myName, seen: onScreen) { commands += loadRow(key.address) }
        if bell, !onScreen, message.type == .chat, message.sender.lowercased() != myName { commands.append(.bell) }
        return commands + followUp()
    }
}

extension ChatModel {
    /// What the selected entry of the open dialogue allows: a message's actions, or for a
    /// message on its way sending it again (failed) and discarding it (failed or queued).
    func actions(for entry: DialogueLayout.Entry?) -> [DialogueState.MessageAction] {
        guard let state = dialogue else { return [] }
        if case .pending(let clientID)? = entry {
            switch outbox.item(clientID)?.state {
            case .failed?: return [.retry, .discard]
            case .queued?, .waiting?: return [.discard]
            case .sending?, nil: return []
            }
        }
        return state.actions(for: entry, me: myName)
    }
}
