/// Draws the whole client into a cell grid: the screen in front, then any overlay (the
/// help, a kick-out, a lost connection), then the bottom row: a question waiting for
/// `y`, a status message (an error too long for one row in a box above it), or the keys.
public enum ChatView {
    /// The frame for `model` at its size.
    public static func render(_ model: ChatModel) -> CellGrid {
        var canvas = Canvas(columns: model.columns, rows: model.rows, text: model.text)
        switch model.screen {
        case .login: FormViews.login(model, &canvas)
        case .register: FormViews.register(model, &canvas)
        case .sessions: MainViews.sessions(model, &canvas)
        case .contacts: MainViews.contacts(model, &canvas)
        case .profile: MainViews.profile(model, &canvas)
        case .dialogue: DialogueView.draw(model, &canvas)
        }
        if let interruption = model.interruption {
            canvas.grid.cursor = nil
            Overlays.interruption(interruption, &canvas)
        } else if case .lost(let reason, let seconds) = model.connection, !model.lostDismissed, model.me != nil {
            canvas.grid.cursor = nil
            Overlays.connectionLost(reason, retryIn: seconds, &canvas)
        } else if model.showHelp {
            canvas.grid.cursor = nil
            Overlays.help(model.screen, commands: model.showCommands, &canvas)
        }
        if let question = model.confirmation {
            canvas.grid.cursor = nil
            canvas.helpBar([], status: (question.question, true), style: .warning, footer: "y: yes · any other key: no")
        } else {
            canvas.helpBar(KeyHelp.bar(for: model), status: model.status)
        }
        return canvas.grid
    }

    /// The terminal's title for `model` (`--title`): the unread count and the account.
    public static func terminalTitle(_ model: ChatModel) -> String {
        guard let me = model.me else { return "switchboard chat" }
        let unread = model.sessions.totalUnread
        let open = model.dialogue.map { " · " + $0.title } ?? ""
        return (unread > 0 ? "(\(unread)) " : "") + "switchboard · \(me.username)" + open
    }
}
