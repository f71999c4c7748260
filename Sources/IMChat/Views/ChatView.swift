/// Draws the whole client into a cell grid: the screen in front, then any overlay (the
/// help, a kick-out, a lost connection), then the key hints.
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
            Overlays.interruption(interruption, model, &canvas)
        } else if model.showHelp {
            canvas.grid.cursor = nil
            Overlays.help(model.screen, &canvas)
        }
        canvas.helpBar(KeyHelp.bar(for: model), status: model.status)
        return canvas.grid
    }
}
