import IMProtocol

/// The Dialogue screen: the conversation's lines, the status row ("N new below", the
/// reply being written, notices), the activity line of other conversations, the input
/// (growing to several rows with its text) and the keys.
enum DialogueView {
    static func draw(_ model: ChatModel, _ canvas: inout Canvas) {
        guard let state = model.dialogue else { return }
        let mark = MainViews.kindMark(state.kind)
        var title: [(String, Style)] = [
            ("← ", .title), (state.title, .titleBold), ("  \(mark)\(state.key.name ?? "") · \(MainViews.kindWord(state.kind))", .title),
        ]
        if case .group(let group) = state.key.address,
            let slow = model.contacts.groups.first(where: { $0.name == group })?.slowMode, slow.seconds > 0
        {
            title.append(("  · slow mode: one post per \(slow)", .title))
        }
        canvas.titleBar(title, right: MainViews.connection(model))
        let lines = model.lines(state)
        let rows = model.messageRows
        // The state clamps its scroll, but a deletion can shorten the lines after that.
        let bottom = lines.count - min(state.scroll, max(0, lines.count - rows))
        let top = max(0, bottom - rows)
        // Fewer lines than rows: they sit at the bottom, next to the input.
        let firstRow = 1 + rows - (bottom - top)
        for (offset, line) in lines[top..<bottom].enumerated() {
            let y = firstRow + offset
            let selected = line.entry != nil && line.entry == state.selected
            if selected { canvas.fill(y, .selected) }
            var column = 0
            for span in line.spans {
                var style = span.style
                if selected { style.reverse = true }
                column = canvas.put(span.text, column, y, style)
            }
        }
        let statusRow = 1 + rows
        statusLine(state, model, row: statusRow, &canvas)
        activityLine(model, row: statusRow + 1, &canvas)
        compose(state, model, top: statusRow + 2, &canvas)
    }

    /// The input: a prompt and the text over as many rows as it takes (up to a third of
    /// the screen, scrolled to the caret), or why posts are refused here.
    private static func compose(_ state: DialogueState, _ model: ChatModel, top: Int, _ canvas: inout Canvas) {
        let prompt = state.editing != nil ? "✎ " : state.replyTo == nil ? "> " : "↪ "
        canvas.put(prompt, 0, top, .helpKey)
        let height = model.composeRows(state)
        let laid = state.compose.rows(width: max(4, canvas.width - 3), layout: model.text)
        let first = max(0, min(laid.caretRow - height + 1, laid.rows.count - height))
        for (offset, row) in laid.rows.dropFirst(first).prefix(height).enumerated() {
            canvas.put(row, 2, top + offset)
        }
        if first > 0 { canvas.put("↑", 0, top + 1, .muted) }
        if state.compose.isEmpty, let block = state.posting {
            // Why posts are refused stands where they would be typed.
            canvas.put(model.text.truncate(block.text(model.time), width: canvas.width - 3), 2, top, .warning)
        }
        if state.focus == .compose, model.interruption == nil, !model.showHelp, model.confirmation == nil {
            canvas.grid.cursor = (2 + laid.caretColumn, top + laid.caretRow - first)
        } else if state.compose.isEmpty, state.posting == nil {
            canvas.put("Tab or Esc goes back to typing", 2, top, .muted)
        }
    }

    /// The rule above the input, with the other conversations that have new messages
    /// and the Alt key that opens each (a hotlist, as IRC clients show activity).
    private static func activityLine(_ model: ChatModel, row: Int, _ canvas: inout Canvas) {
        canvas.put(String(repeating: "─", count: canvas.width), 0, row, .muted)
        let hot = model.hotlist
        guard !hot.isEmpty else { return }
        var column = canvas.put("─ ", 0, row, .muted)
        column = canvas.put("new: ", column, row, .muted)
        for (index, entry) in hot.enumerated() {
            let label = (entry.number.map { "Alt-\($0) " } ?? "") + entry.row.displayName + " (\(entry.row.unread))"
            let needed = model.text.width(label) + 3
            if column + needed > canvas.width - 1 {
                canvas.put("…", column, row, .muted)
                break
            }
            if index > 0 { column = canvas.put(" · ", column, row, .muted) }
            column = canvas.put(label, column, row, .marker)
        }
        canvas.put(" ", column, row, .muted)
    }

    private static func statusLine(_ state: DialogueState, _ model: ChatModel, row: Int, _ canvas: inout Canvas) {
        if state.confirmingDelete != nil {
            canvas.put("Delete this message for everyone? y deletes it, any other key keeps it", 1, row, .warning)
            return
        }
        if state.editing != nil, state.notice == nil {
            canvas.put("editing your message: Enter saves the new text", 1, row, .muted)
            canvas.put("Esc cancels", canvas.width - 12, row, .help)
            return
        }
        if let reply = state.replyTo {
            let text = "replying to \(model.displayName(reply.sender)): " + TextLayout.sanitize(reply.text)
            canvas.put(model.text.truncate(text, width: canvas.width - 18), 1, row, .muted)
            canvas.put("Esc cancels", canvas.width - 12, row, .help)
            return
        }
        if let notice = state.notice {
            canvas.put(model.text.truncate(notice, width: canvas.width - 2), 1, row, .warning)
            return
        }
        let unseen = state.unseenBelow(me: model.myName)
        if state.scroll > 0 {
            let label = unseen > 0
                ? " ↓ \(unseen) new below · PgDn or End to read "
                : " ↓ more below · PgDn or End "
            canvas.center(label, row, unseen > 0 ? .unread : .muted)
        } else if let block = state.posting, !state.compose.isEmpty {
            canvas.put(model.text.truncate(block.text(model.time), width: canvas.width - 2), 1, row, .warning)
        }
    }
}
