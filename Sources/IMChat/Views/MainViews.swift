import IMProtocol

/// The Sessions, Contacts and Profile tabs.
enum MainViews {
    /// The title bar with the three tabs, the account and the connection.
    static func tabs(_ model: ChatModel, _ canvas: inout Canvas) {
        let unread = model.sessions.totalUnread
        let waiting = model.waiting.count
        let names: [(ChatModel.Screen, String)] = [
            (.sessions, "1 Sessions" + (unread > 0 ? " (\(unread))" : "")),
            (.contacts, "2 Contacts" + (waiting > 0 ? " (\(waiting) waiting)" : "")), (.profile, "3 Profile"),
        ]
        var left: [(String, Style)] = []
        for (screen, name) in names {
            left.append(("  ", .title))
            left.append((model.screen == screen ? "[\(name)]" : " \(name) ", model.screen == screen ? .titleBold : .title))
        }
        // The connection state always shows: the name of the program gives way first.
        let used = left.reduce(0) { $0 + canvas.text.width($1.0) } + canvas.text.width(connection(model)) + 3
        if used + 11 < canvas.width { left.insert(("Switchboard", .titleBold), at: 0) }
        canvas.titleBar(left, right: connection(model))
    }

    /// The account and the state of the connection: the same state the status line and
    /// the "Connection lost" screen show.
    static func connection(_ model: ChatModel) -> String {
        let state = switch model.connection {
        case .online: "● online"
        case .connecting: "◌ connecting"
        case .lost: "○ offline"
        }
        return "\(model.me?.username ?? "") " + state
    }

    /// "group" or "room" (or "direct"), so the two are never confused.
    static func kindWord(_ kind: ConversationKind) -> String {
        switch kind {
        case .direct: "direct"
        case .group: "group"
        case .room: "room"
        }
    }

    /// "12 members", "1 member", "3 present".
    static func headcount(_ info: ConversationInfo) -> String {
        info.kind == .room ? "\(info.memberCount.grouped) present" : Plural.count(info.memberCount, "member")
    }

    static func kindMark(_ kind: ConversationKind) -> String {
        switch kind {
        case .direct: "@"
        case .group: "#"
        case .room: "&"
        }
    }

    // MARK: Sessions

    static func sessions(_ model: ChatModel, _ canvas: inout Canvas) {
        tabs(model, &canvas)
        let state = model.sessions
        let top = 2
        let available = canvas.height - 1 - top
        let waiting = model.waiting
        guard !state.rows.isEmpty || !waiting.isEmpty else {
            canvas.center(state.loaded ? "No conversations yet." : "Loading conversations…", 6, .muted)
            if state.loaded {
                canvas.center("Open Contacts (2 or Tab) to message someone, or press + there", 8, .muted)
                canvas.center("to create or join a group or a room.", 9, .muted)
            }
            return
        }
        // Invitations and join requests first, one line each, then two lines per conversation.
        var y = top
        let waitingSelected = model.sessions.waitingSelected.map { min($0, waiting.count - 1) }
        if !waiting.isEmpty {
            canvas.put("Waiting for you (Enter or a accepts, x declines)", 1, y, .heading)
            y += 1
            for (index, item) in waiting.prefix(max(1, available / 4)).enumerated() {
                row(item, model, selected: index == waitingSelected, y, &canvas)
                y += 1
            }
            y += 1
        }
        let perScreen = max(1, (canvas.height - 1 - y) / 2)
        let selected = waitingSelected == nil ? state.selectedIndex ?? 0 : -1
        let first = max(0, min(selected - perScreen + 1, state.rows.count - perScreen))
        for (offset, row) in state.rows.dropFirst(first).prefix(perScreen).enumerated() {
            let isSelected = first + offset == selected
            sessionRow(row, number: first + offset + 1, model, selected: isSelected, y, &canvas)
            y += 2
        }
    }

    private static func sessionRow(_ row: Conversation, number: Int, _ model: ChatModel, selected isSelected: Bool, _ y: Int, _ canvas: inout Canvas) {
        let base: Style = isSelected ? .selected : .plain
        canvas.fill(y, base)
        canvas.fill(y + 1, base)
        let name = DialogueKey(address: row.address).address.description
        canvas.avatar(Avatar(name: row.displayName, key: name, widths: model.text.widths), 1, y)
        let when = row.lastMessage.map { model.time.clock($0.createdAt) } ?? ""
        let badge = row.unread > 0 ? " \(row.unread > 999 ? "999+" : String(row.unread)) " : ""
        let right = canvas.width - 1 - model.text.width(badge) - 1 - when.count
        var column = canvas.put(kindMark(row.kind) + " ", 4, y, isSelected ? .selected : .muted)
        column = canvas.put(row.displayName, column, y, Style(bold: true, reverse: isSelected), limit: max(1, right - column - 9))
        if row.kind != .direct { column = canvas.put(" · " + kindWord(row.kind), column, y, isSelected ? .selected : .muted) }
        canvas.put(when, right, y, isSelected ? .selected : .muted)
        if !badge.isEmpty { canvas.put(badge, canvas.width - 1 - model.text.width(badge), y, .unread) }
        let preview: String
        if let message = row.lastMessage {
            if message.deletedAt != nil {
                preview = "(message deleted)"
            } else if message.type == .system {
                preview = "· " + message.text
            } else if let action = SlashCommand.action(message.text) {
                preview = "* " + (message.sender == model.myName ? "you" : model.displayName(message.sender)) + " " + action
            } else {
                preview = (message.sender == model.myName ? "you" : model.displayName(message.sender)) + ": " + message.text
            }
        } else {
            preview = "no messages yet"
        }
        let numbered = number <= 9 ? "Alt-\(number)" : ""
        let previewWidth = canvas.width - 7 - (numbered.isEmpty ? 0 : numbered.count + 1)
        canvas.put(model.text.truncate(TextLayout.sanitize(preview), width: previewWidth), 6, y + 1, isSelected ? .selected : .muted)
        if !numbered.isEmpty, isSelected { canvas.put(numbered, canvas.width - 1 - numbered.count, y + 1, .selected) }
    }

    // MARK: Contacts

    static func contacts(_ model: ChatModel, _ canvas: inout Canvas) {
        tabs(model, &canvas)
        let state = model.contacts
        if let directory = state.directory {
            GroupFormView.directory(directory, model, &canvas)
        } else if let info = state.info {
            InfoView.draw(info, model, &canvas)
        } else {
            list(model, &canvas)
        }
        if let index = state.menu { menu(index, &canvas) }
        if let prompt = state.prompt { self.prompt(prompt, &canvas) }
        if let form = state.groupForm { GroupFormView.draw(form, model, &canvas) }
    }

    private static func list(_ model: ChatModel, _ canvas: inout Canvas) {
        let state = model.contacts
        guard state.loaded else {
            canvas.center("Loading contacts…", 6, .muted)
            return
        }
        // Headings and rows as one list of lines, scrolled so the selection shows.
        var lines: [(draw: (inout Canvas, Int) -> Void, item: Int?)] = []
        var index = 0
        for (section, items) in state.sections {
            lines.append(({ canvas, y in canvas.put("\(section.title) (\(items.count))", 1, y, .heading) }, nil))
            if items.isEmpty, let hint = section.emptyHint { lines.append(({ canvas, y in canvas.put(hint, 3, y, .muted) }, nil)) }
            for item in items {
                let mine = index
                let selected = mine == state.selection
                lines.append(({ canvas, y in row(item, model, selected: selected, y, &canvas) }, mine))
                index += 1
            }
        }
        let top = 2
        let available = canvas.height - 1 - top
        let selectedLine = lines.firstIndex { $0.item == state.selection } ?? 0
        let first = max(0, min(selectedLine - available + 1, lines.count - available))
        for (offset, line) in lines.dropFirst(first).prefix(available).enumerated() { line.draw(&canvas, top + offset) }
    }

    static func row(_ item: ContactsState.Item, _ model: ChatModel, selected: Bool, _ y: Int, _ canvas: inout Canvas) {
        let base: Style = selected ? .selected : .plain
        canvas.fill(y, base)
        // A request shows who asks; everything else shows itself.
        var (title, avatarName, avatarKey) = (item.title, item.title, item.address.description)
        switch item {
        case .request(let request): (title, avatarName, avatarKey) = (request.user, request.user, "user:" + request.user)
        case .invite, .myRequest: title = "#" + item.name
        default: break
        }
        canvas.avatar(Avatar(name: avatarName, key: avatarKey, widths: model.text.widths), 3, y)
        var column = canvas.put(title, 6, y, Style(bold: true, reverse: selected))
        let detail: String
        switch item {
        case .contact(let user):
            detail = " @\(user.username)" + (model.contacts.blocked.contains(user.username) ? " · blocked" : "")
                + (user.signature.isEmpty ? "" : " · \(user.signature)")
        case .group(let info), .room(let info):
            detail = " \(MainViews.kindMark(info.kind))\(info.name) · \(kindWord(info.kind)) · \(headcount(info))"
        case .invite(let invite):
            detail = " invited by \(invite.invitedBy.isEmpty ? "an admin" : invite.invitedBy) · Enter joins, x declines"
        case .request(let request):
            detail = " asks to join #\(request.group) · a approves, x denies"
        case .myRequest:
            detail = " you asked to join · an admin decides · x withdraws"
        }
        column = canvas.put(model.text.truncate(TextLayout.sanitize(detail), width: max(1, canvas.width - column - 1)), column, y,
                            selected ? .selected : .muted)
    }

    private static func menu(_ selected: Int, _ canvas: inout Canvas) {
        let items = ContactsState.MenuItem.allCases
        let width = 38
        let left = max(0, canvas.width - width - 2)
        canvas.box(left, 2, width, items.count + 2, title: "+")
        for (offset, item) in items.enumerated() {
            let style: Style = offset == selected ? .selected : .plain
            canvas.fill(3 + offset, style, from: left + 1, count: width - 2)
            canvas.put(" \(item.shortcut)  \(item.rawValue)", left + 1, 3 + offset, style)
        }
    }

    private static func prompt(_ prompt: ContactsState.Prompt, _ canvas: inout Canvas) {
        let width = min(56, canvas.width - 4)
        let left = (canvas.width - width) / 2
        let top = canvas.height / 2 - 3
        canvas.box(left, top, width, 5, title: prompt.item.rawValue)
        canvas.put(prompt.item.prompt, left + 2, top + 1, .plain)
        canvas.field(prompt.field, left + 2, top + 3, width: width - 4, focused: true)
    }

    /// A join policy in a word or two.
    static func joinLabel(_ policy: JoinPolicy) -> String {
        switch policy {
        case .invite: "invited only"
        case .open: "anyone"
        case .approval: "on approval"
        }
    }

    /// What a join policy means for people outside the group.
    static func joinMeaning(_ policy: JoinPolicy) -> String {
        switch policy {
        case .invite: "only people its admins invite; hidden from everyone else"
        case .open: "anyone may join it and read its info"
        case .approval: "anyone may ask; an admin approves each request"
        }
    }

    // MARK: Profile

    static func profile(_ model: ChatModel, _ canvas: inout Canvas) {
        tabs(model, &canvas)
        guard let me = model.me else { return }
        let state = model.profile
        canvas.avatar(Avatar(name: me.nickname, key: me.username, widths: model.text.widths), 3, 2, columns: 8, rows: 3,
                      picture: model.picture(me.avatarURL))
        canvas.put(me.nickname, 13, 2, .heading)
        canvas.put("@\(me.username)" + (me.isBot ? " (bot)" : ""), 13, 3, .muted)
        canvas.put("on \(model.server)", 13, 4, .muted)
        let rows: [(String, String, String, ProfileState.Field)] = [
            ("Nickname", me.nickname, "n", .nickname),
            ("Signature", me.signature.isEmpty ? "(none)" : me.signature, "s", .signature),
            // The picture itself shows above (where the terminal draws images); its address
            // means nothing to a reader.
            ("Avatar", me.avatarURL.isEmpty ? "(none: initials)" : "an image", "a", .avatar),
        ]
        for (offset, (label, value, key, field)) in rows.enumerated() {
            let y = 7 + offset * 2
            canvas.put(label, 3, y, .heading)
            if state.editing == field {
                canvas.field(state.field, 15, y, width: min(50, canvas.width - 17), focused: true)
                if field == .avatar { canvas.put("path to a PNG, JPEG, GIF or WebP file (at most 2 MiB)", 15, y + 1, .muted) }
            } else {
                let end = canvas.put(model.text.truncate(TextLayout.sanitize(value), width: canvas.width - 24), 15, y)
                canvas.put("(\(key))", end + 2, y, .muted)
            }
        }
        if let form = state.password {
            passwordForm(form, model, &canvas)
        } else {
            var column = canvas.put("p", 3, 14, .helpKey)
            column = canvas.put(" change the password   ", column, 14, .plain)
            column = canvas.put("o", column, 14, .helpKey)
            canvas.put(" log out", column, 14, .plain)
        }
        let noteRow = state.password == nil ? 16 : 20
        if state.saving { canvas.put("saving…", 3, noteRow, .marker) }
        if let note = state.note {
            for (offset, line) in canvas.text.wrap(TextLayout.sanitize(note), width: canvas.width - 6).prefix(3).enumerated() {
                canvas.put(line, 3, noteRow + offset, state.noteIsError ? .error : .success)
            }
        }
        if state.confirmingLogout {
            canvas.put("Log out of \(me.username)? This machine forgets the login. y / any other key", 3, noteRow, .warning)
        }
    }

    private static func passwordForm(_ form: ProfileState.PasswordForm, _ model: ChatModel, _ canvas: inout Canvas) {
        canvas.put("Change the password (every other login of the account ends; this one stays)", 3, 13, .heading)
        let fields = [("Current", form.current), ("New", form.new), ("New again", form.confirm)]
        for (index, (label, field)) in fields.enumerated() {
            let y = 14 + index * 2
            canvas.put(label, 3, y, form.focus == index ? .heading : .plain)
            canvas.field(field, 15, y, width: min(32, canvas.width - 17), focused: form.focus == index)
        }
    }
}
