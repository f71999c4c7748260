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
            switch model.selectedWaiting {
            case .invite?: return [("Enter/a", "join"), ("x", "decline"), ("↑↓", "move"), ("?", "help"), ("q", "quit")]
            case .request?: return [("a", "approve"), ("x", "deny"), ("↑↓", "move"), ("?", "help"), ("q", "quit")]
            case .myRequest?: return [("x", "withdraw"), ("↑↓", "move"), ("?", "help"), ("q", "quit")]
            default:
                return [("↑↓", "move"), ("Enter", "open"), ("Alt-1…9", "open Nth"), ("Tab", "contacts"), ("r", "reload"),
                        ("?", "help"), ("q", "quit")]
            }
        case .contacts:
            return contacts(model)
        case .profile:
            if model.profile.editing != nil { return [("Enter", "save"), ("Esc", "cancel")] }
            if model.profile.password != nil { return [("Tab", "next field"), ("Enter", "next / save"), ("Esc", "cancel")] }
            if model.profile.confirmingLogout { return [("y", "log out"), ("any key", "stay")] }
            return [("n", "nickname"), ("s", "signature"), ("a", "avatar"), ("p", "password"), ("o", "log out"),
                    ("?", "help")]
        case .dialogue:
            guard let dialogue = model.dialogue else { return [] }
            if dialogue.confirmingDelete != nil { return [("y", "delete for everyone"), ("any other key", "keep it")] }
            if dialogue.focus == .messages {
                var hints: [Hint] = [("↑↓", "select")]
                for action in model.actions(for: dialogue.selected) {
                    switch action {
                    case .reply: hints.append(("r/Enter", "reply"))
                    case .edit: hints.append(("e", "edit"))
                    case .delete: hints.append(("d", "delete"))
                    case .retry: hints.append(("Enter", "send again"))
                    case .discard: hints.append(("d", "discard"))
                    }
                }
                return hints + [("u", "first unread"), ("Esc", "compose"), ("F1", "help")]
            }
            if case .removed? = dialogue.posting {
                return [("PgUp/PgDn", "scroll"), ("Tab", "select"), ("Esc", "back"), ("F1", "help")]
            }
            if dialogue.editing != nil {
                return [("Enter", "save the edit"), ("Esc", "cancel the edit"), ("PgUp/PgDn", "scroll"), ("F1", "help")]
            }
            if !dialogue.compose.isEmpty {
                return [("Enter", "send"), ("Alt-Enter", "new line"), ("PgUp/PgDn", "scroll"), ("Esc", "back"), ("F1", "help")]
            }
            return [("Enter", "send"), ("↑", "edit last"), ("Tab", "select"), ("Alt-1…9", "switch"), ("/help", "commands"),
                    ("Esc", "back"), ("F1", "help")]
        }
    }

    private static func contacts(_ model: ChatModel) -> [Hint] {
        let state = model.contacts
        if state.directory != nil {
            return [("type", "search"), ("↑↓", "choose"), ("Enter", "join / ask to"), ("Esc", "close")]
        }
        if let form = state.groupForm {
            return [("↑↓ Tab", "field"), ("←→", "change"), ("Enter", form.editing == nil ? "create" : "save"), ("Esc", "cancel")]
        }
        if state.prompt != nil { return [("Enter", "go"), ("Esc", "cancel")] }
        if state.menu != nil { return [("↑↓", "move"), ("Enter", "choose"), ("Esc", "close")] }
        guard let info = state.info else {
            switch state.selectedItem {
            case .invite?: return [("Enter/a", "join"), ("x", "decline"), ("↑↓", "move"), ("+", "add/create/join"), ("?", "help")]
            case .request?: return [("a", "approve"), ("x", "deny"), ("↑↓", "move"), ("+", "add/create/join"), ("?", "help")]
            case .myRequest?: return [("x", "withdraw"), ("↑↓", "move"), ("+", "add/create/join"), ("?", "help")]
            default:
                return [("↑↓", "move"), ("Enter", "info"), ("m", "message"), ("+", "add/create/join"), ("Tab", "profile"), ("?", "help")]
            }
        }
        switch info.form {
        case .edit?: return [("↑↓ Tab", "field"), ("←→", "change"), ("Enter", "save"), ("Esc", "cancel")]
        case .moderate(let form)?:
            let verb = form.action == .kick ? "remove" : form.action.rawValue
            return (form.action.takesDuration ? [("Tab", "next field")] : []) + [("Enter", verb), ("Esc", "cancel")]
        case .invite?: return [("Enter", "invite"), ("Esc", "cancel")]
        case nil: break
        }
        if info.actionMenu != nil { return [("↑↓", "move"), ("Enter", "choose"), ("Esc", "close")] }
        switch info.item {
        case .contact(let user):
            let block = state.blocked.contains(user.username) ? "unblock" : "block"
            return [("m", "message"), ("b", block), ("x", "remove contact"), ("Esc", "back"), ("?", "help")]
        case .group(let group):
            let role = info.role(of: model.myName)
            var hints: [Hint] = [("↑↓", "members")]
            if let member = info.member, !model.memberActions(member, in: info).isEmpty { hints.append(("Enter", "act")) }
            hints.append(("m", "open"))
            if ChatModel.mayEdit(group, role: role) { hints.append(("e", "edit")) }
            if (role ?? .member) >= .admin { hints.append(("i", "invite")) }
            return hints + [("l", "leave"), ("Esc", "back"), ("?", "help")]
        case .room:
            return [("m", "open"), ("e", "edit"), ("l", "leave"), ("Esc", "back"), ("?", "help")]
        case .invite, .request, .myRequest:
            return [("Esc", "back")]
        }
    }

    /// The slash commands, for `/help`.
    static var commands: [Hint] { SlashCommand.reference.map { (key: $0.0, label: $0.1) } }

    static func full(for screen: ChatModel.Screen) -> [Hint] {
        let common: [Hint] = [("F1", "this help (any key closes it)"), ("Ctrl-L", "redraw"), ("Ctrl-Z", "suspend"),
                              ("Ctrl-C", "quit (asks first; twice quits)")]
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
                    ("Enter", "open the conversation / the info page"), ("Alt-1…9, Alt-A", "open the Nth / the next with news"),
                    ("r", "reload from the server"),
                    ("+", "Contacts: add a contact, create, browse, join groups; rooms"),
                    ("m", "Contacts: message the selected entry"),
                    ("Enter/a x", "invitation: join, decline; request: approve, deny"),
                    ("e x l b", "Info page: edit, remove contact, leave, (un)block (asks first)"),
                    ("↑↓ Enter, i", "Group info: act on a member (by role), invite"),
                    ("n s a p o", "Profile: nickname, signature, avatar, password, log out"),
                    ("q", "quit (asks first)")]
        case .dialogue:
            keys = [("Enter", "send (offline it waits, queued; refused: ✗)"), ("Alt-Enter", "a new line (a paste stays one message)"),
                    ("↑ (empty line)", "edit your last message"), ("PgUp PgDn, wheel", "scroll; at the top older messages load"),
                    ("End (empty line)", "back to the newest"), ("Alt-1…9, Ctrl-N/P", "the Nth / next / previous conversation"),
                    ("Alt-A", "the next conversation with new messages"),
                    ("Tab", "select messages: ↑↓ j k, g/G oldest/newest"),
                    ("r or Enter", "reply to it; Enter on a failed send retries it"),
                    ("e", "edit your message (Enter saves, Esc cancels)"),
                    ("d or Delete", "delete for everyone; a failed send: discard"),
                    ("u", "jump to the first unread message"), ("Esc", "cancel the reply or edit, else back to the list"),
                    ("/help", "the commands of the input line: /join, /me, /nick…")]
        }
        return keys + common
    }
}
