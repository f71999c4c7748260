/// The Login and Register screens.
enum FormViews {
    static func login(_ model: ChatModel, _ canvas: inout Canvas) {
        let state = model.login
        canvas.titleBar([("Switchboard", .titleBold), (" · Log in", .title)], right: model.server)
        let name = state.username.text.lowercased()
        let saved = state.profileFor == name ? state.savedProfile : nil
        let avatar = Avatar(name: saved?.nickname ?? (name.isEmpty ? "?" : name), key: name.isEmpty ? "?" : name, widths: model.text.widths)
        let middle = canvas.width / 2
        canvas.avatar(avatar, middle - 4, 2, columns: 8, rows: 3, picture: model.picture(saved.map { "local:" + $0.username }))
        let caption = saved.map { "\($0.nickname) (@\($0.username)), welcome back" }
            ?? (name.isEmpty ? "Welcome" : "@\(name)")
        canvas.center(caption, 6, saved == nil ? .muted : .plain)
        switch state.phase {
        case .waiting:
            canvas.center("Logging in as \(name)…", 10, .marker)
            canvas.center("waiting for \(model.server)", 12, .muted)
        case .failed(let reason):
            canvas.center("Login failed", 9, .error)
            paragraph(reason, row: 11, &canvas)
            canvas.center("[ OK ]  Enter", 15, .focusedField)
        case .editing:
            let left = max(2, middle - 22)
            canvas.put("Username", left, 9, state.focus == .username ? .heading : .plain)
            canvas.field(state.username, left + 10, 9, width: 32, focused: state.focus == .username)
            canvas.put("Password", left, 11, state.focus == .password ? .heading : .plain)
            canvas.field(state.password, left + 10, 11, width: 32, focused: state.focus == .password)
            let after = canvas.button("Log in", left + 10, 13, focused: state.focus == .login)
            canvas.button("Register", after + 3, 13, focused: state.focus == .register)
            if let warning = state.warning { canvas.center("⚠ " + warning, 15, .warning) }
            if let note = state.note { paragraph(note, row: 17, &canvas, style: .muted) }
        }
    }

    static func register(_ model: ChatModel, _ canvas: inout Canvas) {
        let state = model.register
        canvas.titleBar([("Switchboard", .titleBold), (" · Register", .title)], right: model.server)
        let middle = canvas.width / 2
        canvas.center("Create an account", 3, .heading)
        canvas.center("a username (letters, digits, . _ -) and a password of 8 characters or more", 4, .muted)
        switch state.phase {
        case .waiting:
            canvas.center("Creating \(state.username.text.lowercased())…", 10, .marker)
        case .failed(let reason):
            canvas.center("Registration failed", 9, .error)
            paragraph(reason, row: 11, &canvas)
            canvas.center("[ OK ]  Enter", 15, .focusedField)
        case .editing:
            let left = max(2, middle - 24)
            let rows: [(String, TextField, RegisterState.Focus)] = [
                ("Username", state.username, .username), ("Password", state.password, .password),
                ("Confirm", state.confirm, .confirm),
            ]
            for (offset, (label, field, focus)) in rows.enumerated() {
                let row = 7 + offset * 2
                canvas.put(label, left, row, state.focus == focus ? .heading : .plain)
                canvas.field(field, left + 12, row, width: 32, focused: state.focus == focus)
            }
            let after = canvas.button("Register", left + 12, 13, focused: state.focus == .register)
            canvas.button("Back to login", after + 3, 13, focused: state.focus == .back)
            if let warning = state.warning { canvas.center("⚠ " + warning, 15, .warning) }
        }
    }

    /// Wrapped, centred text from `row`: at most `most` lines, the last ending in "…"
    /// when there is more.
    static func paragraph(_ text: String, row: Int, _ canvas: inout Canvas, style: Style = .plain, most: Int = 4) {
        let width = min(70, canvas.width - 4)
        var lines = canvas.text.wrap(TextLayout.sanitize(text), width: width)
        if lines.count > most {
            lines = Array(lines.prefix(most))
            lines[most - 1] = canvas.text.truncate(lines[most - 1] + " …", width: width)
        }
        for (offset, line) in lines.enumerated() { canvas.center(line, row + offset, style) }
    }
}
