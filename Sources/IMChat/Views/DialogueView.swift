/// The Dialogue screen: the conversation's lines, the status row ("N new below", the
/// reply being written, notices), the compose line and the keys.
enum DialogueView {
    static func draw(_ model: ChatModel, _ canvas: inout Canvas) {
        guard let state = model.dialogue else { return }
        let mark = MainViews.kindMark(state.kind)
        var title: [(String, Style)] = [("← ", .title), (state.title, .titleBold), ("  \(mark)\(name(state.key))", .title)]
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
        // Fewer lines than rows: they sit at the bottom, next to the compose line.
        let firstRow = 1 + rows - (bottom - top)
        for (offset, line) in lines[top..<bottom].enumerated() {
            let y = firstRow + offset
            let selected = line.entry != nil && line.entry == state.selected
            if selected { canvas.fill(y, .selected) }
            var column = 0
            for span in line.spans {
                var style = span.style
                if selected { style.reverse = true }
                column = canvas.grid.put(span.text, column: column, row: y, style: style, widths: model.text.widths)
            }
        }
        let statusRow = canvas.height - 4
        statusLine(state, model, row: statusRow, &canvas)
        canvas.put(String(repeating: "─", count: canvas.width), 0, canvas.height - 3, .muted)
        let composeRow = canvas.height - 2
        let prompt = state.editing != nil ? "✎ " : state.replyTo == nil ? "> " : "↪ "
        canvas.put(prompt, 0, composeRow, .helpKey)
        let shown = state.compose.visible(width: canvas.width - 3, layout: model.text)
        canvas.put(shown.text, 2, composeRow)
        if state.compose.isEmpty, let block = state.posting {
            // Why posts are refused stands where they would be typed.
            canvas.put(model.text.truncate(block.text(model.time), width: canvas.width - 3), 2, composeRow, .warning)
        }
        if state.focus == .compose, model.interruption == nil, !model.showHelp {
            canvas.grid.cursor = (2 + shown.caretColumn, composeRow)
        } else if state.compose.isEmpty, state.posting == nil {
            canvas.put("Tab or Esc goes back to typing", 2, composeRow, .muted)
        }
    }

    private static func name(_ key: DialogueKey) -> String {
        switch key.address {
        case .user(let name), .group(let name), .room(let name): name
        case .id(let id): id.description
        }
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
            let text = "replying to \(reply.sender): " + TextLayout.sanitize(reply.text)
            canvas.put(model.text.truncate(text, width: canvas.width - 18), 1, row, .muted)
            canvas.put("Esc cancels", canvas.width - 12, row, .help)
            return
        }
        if let notice = state.notice {
            canvas.put(notice, 1, row, .warning)
            return
        }
        if state.scroll > 0 {
            let label = state.newBelow > 0
                ? " ↓ \(state.newBelow) new below · PgDn or End to read "
                : " ↓ more below · PgDn or End "
            canvas.center(label, row, state.newBelow > 0 ? .unread : .muted)
        } else if let block = state.posting, !state.compose.isEmpty {
            canvas.put(model.text.truncate(block.text(model.time), width: canvas.width - 2), 1, row, .warning)
        }
    }
}
