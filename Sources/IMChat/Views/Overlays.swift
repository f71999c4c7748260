/// Screens in front of the others: the key help, a kick-out, an ended login, a lost connection.
enum Overlays {
    static func help(_ screen: ChatModel.Screen, _ canvas: inout Canvas) {
        for row in 1..<(canvas.height - 1) { canvas.fill(row, .plain) }
        let hints = KeyHelp.full(for: screen)
        let width = min(76, canvas.width - 2)
        let height = min(hints.count + 4, canvas.height - 2)
        let left = (canvas.width - width) / 2
        let top = max(1, (canvas.height - height) / 2)
        canvas.box(left, top, width, height, title: "Keys")
        let keyWidth = min(24, hints.map { canvas.text.width($0.key) }.max() ?? 10)
        for (offset, hint) in hints.prefix(height - 4).enumerated() {
            canvas.put(hint.key, left + 2, top + 2 + offset, .helpKey, limit: keyWidth)
            canvas.put(hint.label, left + 4 + keyWidth, top + 2 + offset, .plain, limit: width - keyWidth - 6)
        }
    }

    static func interruption(_ interruption: Interruption, _ model: ChatModel, _ canvas: inout Canvas) {
        for row in 1..<(canvas.height - 1) { canvas.fill(row, .plain) }
        let middle = canvas.height / 2 - 4
        let title: String
        let reason: String
        let keys: [String]
        switch interruption {
        case .kickedOut(let why):
            (title, reason) = ("Logged in elsewhere", why)
            keys = ["Enter  back to the Login screen", "q      quit"]
        case .loginEnded(let why):
            (title, reason) = ("This login has ended", why)
            keys = ["Enter  back to the Login screen", "q      quit"]
        case .connectionLost(let why, let seconds):
            (title, reason) = ("Connection lost", why)
            keys = ["trying again \(seconds > 0 ? "in \(seconds) s" : "now"); this screen closes once connected",
                    "r      try again now", "Esc    keep reading what is loaded", "l      log out", "q      quit"]
        }
        canvas.center(title, middle, .error)
        FormViews.paragraph(reason, row: middle + 2, &canvas)
        // The keys as one left-aligned block in the middle; a leading status line is centred.
        var rows = keys[...]
        var row = middle + 5
        if case .connectionLost = interruption, let status = rows.first {
            canvas.center(status, row, .marker)
            rows = rows.dropFirst()
            row += 2
        }
        let blockWidth = rows.map { canvas.text.width($0) }.max() ?? 0
        let left = max(0, (canvas.width - blockWidth) / 2)
        for (offset, line) in rows.enumerated() {
            let key = line.prefix { $0 != " " }
            canvas.put(String(key), left, row + offset, .helpKey)
            canvas.put(String(line.dropFirst(key.count)), left + key.count, row + offset)
        }
    }
}
