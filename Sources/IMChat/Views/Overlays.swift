/// Screens in front of the others: the key help, a kick-out, an ended login, a lost connection.
enum Overlays {
    static func help(_ screen: ChatModel.Screen, commands: Bool, _ canvas: inout Canvas) {
        for row in 1..<(canvas.height - 1) { canvas.fill(row, .plain) }
        let hints = commands ? KeyHelp.commands : KeyHelp.full(for: screen)
        let width = min(76, canvas.width - 2)
        let height = min(hints.count + 4, canvas.height - 2)
        let left = (canvas.width - width) / 2
        let top = max(1, (canvas.height - height) / 2)
        canvas.box(left, top, width, height, title: commands ? "Commands of the input line" : "Keys")
        let keyWidth = min(24, hints.map { canvas.text.width($0.key) }.max() ?? 10)
        for (offset, hint) in hints.prefix(height - 4).enumerated() {
            canvas.put(hint.key, left + 2, top + 2 + offset, .helpKey, limit: keyWidth)
            canvas.put(hint.label, left + 4 + keyWidth, top + 2 + offset, .plain, limit: width - keyWidth - 6)
        }
    }

    static func interruption(_ interruption: Interruption, _ canvas: inout Canvas) {
        let (title, reason) = switch interruption {
        case .kickedOut(let why): ("Logged in elsewhere", why)
        case .loginEnded(let why): ("This login has ended", why)
        }
        screen(title: title, reason: reason, status: nil, keys: ["Enter  back to the Login screen", "q      quit"], &canvas)
    }

    /// The server cannot be reached: what happened, when the next try is, and the keys.
    /// It closes by itself once the connection is back.
    static func connectionLost(_ reason: String, retryIn seconds: Int, _ canvas: inout Canvas) {
        screen(
            title: "Connection lost", reason: reason,
            status: "trying again \(seconds > 0 ? "in \(seconds) s" : "now"); this screen closes once connected",
            keys: ["Enter  try again now", "Esc    keep reading what is loaded; other keys go on there",
                   "       (messages typed meanwhile wait, queued, and go once connected)"], &canvas)
    }

    private static func screen(title: String, reason: String, status: String?, keys: [String], _ canvas: inout Canvas) {
        for row in 1..<(canvas.height - 1) { canvas.fill(row, .plain) }
        let middle = canvas.height / 2 - 4
        canvas.center(title, middle, .error)
        FormViews.paragraph(reason, row: middle + 2, &canvas, most: 3)
        var row = middle + 5
        if let status {
            canvas.center(status, row, .marker)
            row += 2
        }
        // The keys as one left-aligned block in the middle.
        let blockWidth = keys.map { canvas.text.width($0) }.max() ?? 0
        let left = max(0, (canvas.width - blockWidth) / 2)
        for (offset, line) in keys.enumerated() {
            let key = line.prefix { $0 != " " }
            canvas.put(String(key), left, row + offset, .helpKey)
            canvas.put(String(line.dropFirst(key.count)), left + key.count, row + offset)
        }
    }
}
