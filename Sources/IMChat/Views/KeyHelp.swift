/// The keys of each screen: a short line at the bottom of every screen, and the full
/// list in the help overlay (F1, or `?` where no text field has the keys).
enum KeyHelp {
    typealias Hint = (key: String, label: String)

    static func bar(for model: ChatModel) -> [Hint] {
        if model.interruption != nil { return [] }
        switch model.screen {
        case .login:
            return [("Tab", "next"), ("Enter", "log in"), ("^R", "register"), ("F1", "help"), ("^C", "quit")]
        case .register:
            return [("Tab", "next"), ("Enter", "register"), ("Esc", "back"), ("F1", "help"), ("^C", "quit")]
        case .sessions:
            return [("↑↓", "move"), ("Enter", "open"), ("Tab", "contacts"), ("r", "reload"), ("?", "help"), ("q", "quit")]
        case .contacts:
            if model.contacts.prompt != nil { return [("Enter", "go"), ("Esc", "cancel")] }
            if model.contacts.menu != nil { return [("↑↓", "move"), ("Enter", "choose"), ("Esc", "close")] }
            if let info = model.contacts.info {
                if info.editing != nil { return [("Tab", "next field"), ("Enter", "save"), ("Esc", "cancel")] }
                switch info.item {
                case .contact: return [("m", "message"), ("x", "remove contact"), ("Esc", "back"), ("?", "help")]
                case .group, .room: return [("m", "open"), ("e", "edit"), ("l", "leave"), ("Esc", "back"), ("?", "help")]
                }
            }
            return [("↑↓", "move"), ("Enter", "info"), ("m", "message"), ("+", "add/create/join"), ("Tab", "profile"), ("?", "help")]
        case .profile:
            if model.profile.editing != nil { return [("Enter", "save"), ("Esc", "cancel")] }
            if model.profile.confirmingLogout { return [("y", "log out"), ("any key", "stay")] }
            return [("n", "nickname"), ("s", "signature"), ("a", "avatar"), ("o", "log out"), ("Tab", "sessions"), ("?", "help")]
        case .dialogue:
            if let dialogue = model.dialogue, dialogue.focus == .messages {
                var hints: [Hint] = [("↑↓", "select")]
                for action in dialogue.actions(for: dialogue.selected) {
                    switch action {
                    case .reply: hints.append(("r/Enter", "reply"))
                    case .retry: hints.append(("Enter", "send again"))
                    }
                }
                return hints + [("u", "first unread"), ("Esc", "compose"), ("F1", "help")]
            }
            return [("Enter", "send"), ("PgUp/PgDn", "scroll"), ("Tab", "select"), ("Esc", "back"), ("F1", "help")]
        }
    }

    static func full(for screen: ChatModel.Screen) -> [Hint] {
        let common: [Hint] = [("F1", "this help (any key closes it)"), ("Ctrl-L", "redraw"), ("Ctrl-Z", "suspend"), ("Ctrl-C", "quit")]
        let keys: [Hint]
        switch screen {
        case .login:
            keys = [("Tab ↓ / Shift-Tab ↑", "next / previous field or button"), ("Enter", "log in (or the focused button)"),
                    ("Ctrl-R", "the Register screen"), ("Ctrl-A Ctrl-E", "start / end of the field"),
                    ("Ctrl-U Ctrl-K Ctrl-W", "delete to start / to end / a word")]
        case .register:
            keys = [("Tab ↓ / Shift-Tab ↑", "next / previous field or button"), ("Enter", "create the account and log in"),
                    ("Esc", "back to Login")]
        case .sessions, .contacts, .profile:
            keys = [("1 2 3, Tab", "Sessions, Contacts, Profile"), ("↑↓ j k, PgUp PgDn", "move"),
                    ("Enter", "open the conversation / the info page"), ("r", "reload from the server"),
                    ("+", "Contacts: add a contact, create or join a group, create or enter a room"),
                    ("m", "Contacts: message the selected entry"), ("e x l", "Info page: edit, remove contact, leave"),
                    ("n s a o", "Profile: nickname, signature, avatar file, log out"), ("q", "quit")]
        case .dialogue:
            keys = [("Enter", "send (a failed send stays, marked ✗, to retry)"), ("PgUp PgDn, wheel", "scroll; at the top older messages load"),
                    ("End (empty line)", "back to the newest"), ("Tab", "select messages: ↑↓ j k, g/G oldest/newest"),
                    ("r or Enter", "reply to the selected message; Enter on a failed send retries it"),
                    ("u", "jump to the first unread message"), ("Esc", "cancel the reply, else back to the list")]
        }
        return keys + common
    }
}
