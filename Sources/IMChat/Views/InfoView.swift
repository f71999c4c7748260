import IMProtocol

/// The info page of a contact, group or room, with its forms: a group's or room's title
/// and description, a member's actions menu, a mute, kick or ban, an invitation.
enum InfoView {
    static func draw(_ info: ContactsState.Info, _ model: ChatModel, _ canvas: inout Canvas) {
        let item = info.item
        let picture: String? = switch item {
        case .contact(let user): user.avatarURL
        case .group(let info), .room(let info): info.logoURL
        default: nil
        }
        canvas.avatar(Avatar(name: item.title, key: item.address.description, widths: model.text.widths), 3, 2, columns: 8, rows: 3,
                      picture: model.picture(picture))
        canvas.put(item.title, 13, 2, .heading)
        canvas.put(item.address.description, 13, 3, .muted)
        switch item {
        case .contact(let user): contact(user, model, &canvas)
        case .group(let group), .room(let group): conversation(group, info, model, &canvas)
        case .invite, .request, .myRequest: break
        }
    }

    private static func contact(_ user: User, _ model: ChatModel, _ canvas: inout Canvas) {
        let y = 6
        canvas.put("since \(model.time.day(user.createdAt))", 13, 4, .muted)
        canvas.put("Nickname", 3, y, .heading)
        canvas.put(user.nickname, 15, y)
        canvas.put("Signature", 3, y + 2, .heading)
        canvas.put(user.signature.isEmpty ? "(none)" : user.signature, 15, y + 2)
        if user.isBot { canvas.put("a bot account", 15, y + 4, .muted) }
        if model.contacts.blocked.contains(user.username) {
            canvas.put("Blocked", 3, y + 6, .heading)
            canvas.put("their messages to you are refused (they are not told); b unblocks", 15, y + 6, .warning)
        }
    }

    private static func conversation(
        _ group: ConversationInfo, _ info: ContactsState.Info, _ model: ChatModel, _ canvas: inout Canvas
    ) {
        // The form to change it goes over the page, whatever the page shows.
        defer { if case .edit(let form)? = info.form { GroupFormView.draw(form, model, &canvas) } }
        canvas.put(MainViews.kindWord(group.kind) + " · " + MainViews.headcount(group)
                   + (group.createdBy.map { " · created by \($0)" } ?? ""), 13, 4, .muted)
        var y = 6
        if group.kind == .group {
            canvas.put(canvas.text.truncate(settings(group), width: canvas.width - 14), 13, 5, .muted)
            y = 7
        }
        canvas.put("Description", 3, y, .heading)
        var lines = canvas.text.wrap(TextLayout.sanitize(group.description.isEmpty ? "(none)" : group.description, keepNewlines: true),
                                     width: canvas.width - 18)
        if lines.count > 3 {
            // A long description ends in "…": e edits (and shows) the whole of it.
            lines = Array(lines.prefix(3))
            lines[2] = canvas.text.truncate(lines[2] + " …", width: canvas.width - 18)
        }
        for line in lines {
            canvas.put(line, 16, y)
            y += 1
        }
        y += 1
        canvas.put(group.kind == .room ? "Present" : "Members", 3, y, .heading)
        guard let members = info.members else {
            canvas.put("loading…", 16, y, .muted)
            return
        }
        let room = canvas.height - 2 - y
        // Scrolled so that the selected member shows.
        let first = max(0, min((info.selectedMember ?? 0) - room + 1, members.count - room))
        for (offset, member) in members.dropFirst(first).prefix(max(0, room)).enumerated() {
            let row = y + offset
            let selected = first + offset == info.selectedMember
            if selected { canvas.fill(row, .selected, from: 15, count: canvas.width - 16) }
            canvas.avatar(Avatar(name: member.user.nickname, key: "user:" + member.user.username, widths: model.text.widths), 16, row)
            let end = canvas.put(member.user.nickname, 19, row, selected ? .selected : .plain)
            canvas.put(" @\(member.user.username)\(standing(member, model))", end, row, selected ? .selected : .muted)
        }
        if info.selectedMember == nil, members.count > room, room > 0 {
            canvas.put("… and \(members.count - room + 1) more (↓ goes through them)", 19, y + room - 1, .muted)
        }
        if let index = info.actionMenu, let member = info.member, let selected = info.selectedMember {
            // Under the member it acts on, so that one stays in view.
            let actions = model.memberActions(member, in: info)
            let top = min(y + selected - first + 1, canvas.height - 3 - actions.count)
            actionMenu(actions, member, selected: index, top: top, &canvas)
        }
        switch info.form {
        case .moderate(let form)?: moderationForm(form, &canvas)
        case .invite(let field)?: inviteForm(field, group, &canvas)
        case .edit?, nil: break
        }
    }

    /// A group's settings in one line.
    private static func settings(_ group: ConversationInfo) -> String {
        var parts = ["joins: " + MainViews.joinLabel(group.join ?? .invite)]
        if group.newMembers == .restricted { parts.append("newcomers wait") }
        if let slow = group.slowMode, slow.seconds > 0 { parts.append("slow mode \(slow)") }
        parts.append("info: " + (group.infoEditableBy == .members ? "any member" : "admins"))
        return parts.joined(separator: " · ")
    }

    /// A member's role, mute or wait, after their name.
    private static func standing(_ member: Member, _ model: ChatModel) -> String {
        var text = member.role == .member ? "" : " · \(member.role.rawValue)"
        if member.muted == true {
            text += " · muted" + (member.mutedUntil.map { " until \(model.time.clock($0))" } ?? "")
        }
        if member.restricted == true { text += " · newcomer, waits to post" }
        if member.user.username == model.myName { text += " (you)" }
        return text
    }

    private static func actionMenu(
        _ actions: [ModerationAction], _ member: Member, selected: Int, top: Int, _ canvas: inout Canvas
    ) {
        let width = 40
        let left = max(0, min(19, canvas.width - width - 1))
        canvas.box(left, top, width, actions.count + 2, title: "@" + member.user.username)
        for (offset, action) in actions.enumerated() {
            let style: Style = offset == selected ? .selected : .plain
            canvas.fill(top + 1 + offset, style, from: left + 1, count: width - 2)
            canvas.put(" \(MemberActions.shortcut(action))  \(MemberActions.label(action, member))", left + 1, top + 1 + offset, style)
        }
    }

    private static func moderationForm(_ form: ContactsState.ModerationForm, _ canvas: inout Canvas) {
        let width = min(60, canvas.width - 4)
        let left = (canvas.width - width) / 2
        let top = canvas.height / 2 - 4
        let verb = form.action == .kick ? "Remove" : form.action.rawValue.capitalized
        canvas.box(left, top, width, form.action.takesDuration ? 7 : 4, title: "\(verb) \(form.user)")
        var row = top + 1
        if form.action.takesDuration {
            canvas.put("For how long: 10m, 2h, 1d (empty: until lifted)", left + 2, row, .plain)
            canvas.field(form.duration, left + 2, row + 1, width: 16, focused: !form.focusReason)
            row += 3
        }
        canvas.put("Reason (optional; the group's notice shows it)", left + 2, row, .plain)
        canvas.field(form.reason, left + 2, row + 1, width: width - 4, focused: form.focusReason)
    }

    private static func inviteForm(_ field: TextField, _ group: ConversationInfo, _ canvas: inout Canvas) {
        let width = min(56, canvas.width - 4)
        let left = (canvas.width - width) / 2
        let top = canvas.height / 2 - 3
        canvas.box(left, top, width, 5, title: "Invite to #\(group.name)")
        canvas.put("Username to invite (they accept by joining)", left + 2, top + 1, .plain)
        canvas.field(field, left + 2, top + 3, width: width - 4, focused: true)
    }
}
