import IMProtocol

/// The info page of a contact, group or room, with the edit form of a group or room.
enum InfoView {
    static func draw(_ info: ContactsState.Info, _ model: ChatModel, _ canvas: inout Canvas) {
        let item = info.item
        canvas.avatar(Avatar(name: item.title, key: item.address.description, widths: model.text.widths), 3, 2, columns: 8, rows: 3)
        canvas.put(item.title, 13, 2, .heading)
        canvas.put(item.address.description, 13, 3, .muted)
        var y = 6
        switch item {
        case .contact(let user):
            canvas.put("Nickname", 3, y, .heading)
            canvas.put(user.nickname, 15, y)
            canvas.put("Signature", 3, y + 2, .heading)
            canvas.put(user.signature.isEmpty ? "(none)" : user.signature, 15, y + 2)
            if user.isBot { canvas.put("a bot account", 15, y + 4, .muted) }
            canvas.put("since \(model.time.day(user.createdAt))", 13, 4, .muted)
        case .group(let group), .room(let group):
            canvas.put("\(group.memberCount) \(group.kind == .room ? "present" : "members")"
                       + (group.createdBy.map { " · created by \($0)" } ?? ""), 13, 4, .muted)
            if let form = info.editing {
                canvas.put("Title", 3, y, .heading)
                canvas.field(form.title, 16, y, width: min(48, canvas.width - 18), focused: !form.focusDescription)
                canvas.put("Description", 3, y + 2, .heading)
                canvas.field(form.description, 16, y + 2, width: min(48, canvas.width - 18), focused: form.focusDescription)
                canvas.put("any member may change these; everyone sees a notice", 16, y + 4, .muted)
                return
            }
            canvas.put("Description", 3, y, .heading)
            let lines = canvas.text.wrap(TextLayout.sanitize(group.description.isEmpty ? "(none)" : group.description),
                                         width: canvas.width - 18)
            for line in lines.prefix(3) {
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
            for (offset, member) in members.prefix(max(0, room)).enumerated() {
                let row = y + offset
                canvas.avatar(Avatar(name: member.user.nickname, key: "user:" + member.user.username, widths: model.text.widths), 16, row)
                let end = canvas.put(member.user.nickname, 19, row)
                let role = member.role == .member ? "" : " · \(member.role.rawValue)"
                canvas.put(" @\(member.user.username)\(role)", end, row, .muted)
            }
            if members.count > room, room > 0 {
                canvas.put("… and \(members.count - room + 1) more", 19, y + room - 1, .muted)
            }
        }
    }
}
