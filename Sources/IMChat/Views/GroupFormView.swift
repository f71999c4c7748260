import IMProtocol

/// The group form (create, or change title, description and settings) and the directory
/// of groups anyone may join.
enum GroupFormView {
    /// The form in a box over the screen.
    static func draw(_ form: GroupForm, _ model: ChatModel, _ canvas: inout Canvas) {
        let width = min(72, canvas.width - 2)
        let left = max(0, (canvas.width - width) / 2)
        let height = form.fields.count * 2 + 2
        let top = max(1, min(3, canvas.height - height - 1))
        let title = form.editing.map { "Change #\($0.name)" } ?? "Create a group"
        canvas.box(left, top, width, height, title: title)
        let fieldLeft = left + 19
        let fieldWidth = max(8, width - 21)
        for (index, field) in form.fields.enumerated() {
            let y = top + 1 + index * 2
            let focused = form.focus == field
            canvas.put(field.label, left + 2, y, focused ? .heading : .plain)
            switch field {
            case .name: canvas.field(form.name, fieldLeft, y, width: fieldWidth, focused: focused)
            case .title: canvas.field(form.title, fieldLeft, y, width: fieldWidth, focused: focused)
            case .description: canvas.field(form.description, fieldLeft, y, width: fieldWidth, focused: focused)
            case .slowMode:
                canvas.field(form.slowMode, fieldLeft, y, width: 10, focused: focused)
                canvas.put("e.g. 30s, 10m; empty: off", fieldLeft + 12, y, .muted, limit: width - 32)
            case .join:
                choice(GroupForm.policies.map { (MainViews.joinLabel($0), $0 == form.join) }, fieldLeft, y, focused, &canvas)
                canvas.put(canvas.text.truncate(MainViews.joinMeaning(form.join), width: fieldWidth), fieldLeft, y + 1, .muted)
            case .newcomers:
                choice([("post at once", form.newMembers == .full), ("wait for an admin", form.newMembers == .restricted)],
                       fieldLeft, y, focused, &canvas)
            case .infoEditors:
                choice([("owner and admins", form.infoEditableBy == .admins), ("any member", form.infoEditableBy == .members)],
                       fieldLeft, y, focused, &canvas)
            }
        }
        let hint = form.editing == nil ? "Enter creates it · Esc cancels" : "Enter saves · Esc cancels"
        canvas.put(hint, left + 2, top + height - 1, .help)
    }

    /// A row of choices, the current one marked; ←→ change it when focused.
    private static func choice(_ options: [(String, Bool)], _ column: Int, _ row: Int, _ focused: Bool, _ canvas: inout Canvas) {
        var x = column
        if focused { x = canvas.put("◀ ", x, row, .helpKey) }
        for (label, chosen) in options {
            x = canvas.put(chosen ? "[\(label)]" : " \(label) ", x, row, chosen ? (focused ? .focusedField : .heading) : .muted) + 1
        }
        if focused { canvas.put("▶", x, row, .helpKey) }
    }

    /// The directory page: the search field, then the groups found, a page at a time.
    static func directory(_ directory: DirectoryState, _ model: ChatModel, _ canvas: inout Canvas) {
        canvas.put("Groups anyone may join", 1, 2, .heading)
        canvas.put("(open ones let you in; the others ask an admin)", 24, 2, .muted)
        canvas.put("Search", 1, 4, .plain)
        canvas.field(directory.search, 9, 4, width: min(40, canvas.width - 11), focused: true)
        var y = 6
        if let error = directory.error {
            for line in canvas.text.wrap(TextLayout.sanitize("cannot load the directory: " + error), width: canvas.width - 4).prefix(3) {
                canvas.put(line, 2, y, .error)
                y += 1
            }
            return
        }
        if directory.groups.isEmpty {
            let text = directory.loading || directory.shownSearch == nil ? "looking…"
                : directory.query.isEmpty ? "No group is open to everyone yet." : "No group's name or title has '\(directory.query)'."
            canvas.put(text, 2, y, .muted)
            return
        }
        let perScreen = max(1, (canvas.height - 1 - y) / 2)
        let first = max(0, min(directory.selection - perScreen + 1, directory.groups.count - perScreen))
        for (offset, group) in directory.groups.dropFirst(first).prefix(perScreen).enumerated() {
            let selected = first + offset == directory.selection
            let base: Style = selected ? .selected : .plain
            canvas.fill(y, base)
            canvas.fill(y + 1, base)
            canvas.avatar(Avatar(name: group.title, key: "group:" + group.name, widths: model.text.widths), 1, y)
            var column = canvas.put(group.title, 4, y, Style(bold: true, reverse: selected), limit: canvas.width / 2)
            let door = group.join == .open ? "open" : "on approval"
            column = canvas.put(" #\(group.name) · group · \(Plural.count(group.members, "member")) · \(door)", column, y, selected ? .selected : .muted)
            let about = group.description.isEmpty ? "(no description)" : group.description
            canvas.put(model.text.truncate(TextLayout.sanitize(about), width: canvas.width - 7), 6, y + 1, selected ? .selected : .muted)
            y += 2
        }
        if directory.nextAfter != nil || directory.loading {
            canvas.put(directory.loading ? "loading more…" : "↓ for more", 2, min(y, canvas.height - 2), .muted)
        }
    }
}
