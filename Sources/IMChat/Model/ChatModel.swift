import IMClient
import IMProtocol

/// The whole terminal client as a value: which screen is in front, the state of every
/// screen, and how each input changes it.
///
/// `handle(_:)` is the only way in: it applies a key, a command's answer or a live
/// event and returns the commands to carry out. Nothing here does I/O or reads a clock,
/// so tests drive every screen by feeding inputs and reading the state (and, through
/// the views, the cell grid).
public struct ChatModel: Sendable {
    /// The screens of the seed app.
    public enum Screen: Sendable, Equatable, CaseIterable {
        case login, register, sessions, contacts, profile, dialogue
    }

    /// The server, as shown on the Login screen.
    public let server: String
    public var screen = Screen.login
    /// The account logged in, nil on the Login and Register screens.
    public var me: User?
    public var login = LoginState()
    public var register = RegisterState()
    public var sessions = SessionsState()
    public var contacts = ContactsState()
    public var profile = ProfileState()
    /// The open conversation.
    public var dialogue: DialogueState?
    /// The screen the dialogue returns to.
    public var dialogueReturn = Screen.sessions
    /// A kick-out, an ended login or a lost connection, in front of everything.
    public var interruption: Interruption?
    /// The live stream is not connected (shown in the title bar after the lost
    /// connection screen is dismissed).
    public var offline = false
    public var showHelp = false
    /// A one-line message in the help row until the next key.
    public var status: (text: String, isError: Bool)?
    public var columns: Int
    public var rows: Int
    public let text: TextLayout
    public let time: TimeFormat
    private let idPrefix: String
    private var sendCount = 0

    /// A client for `server`, showing the Login screen.
    ///
    /// `idPrefix` starts every send's client message id; give each run its own (the app
    /// uses a random one) so ids never repeat across runs.
    public init(
        server: String, columns: Int = 80, rows: Int = 24, widths: WidthTable = .standard,
        time: TimeFormat = .local, idPrefix: String
    ) {
        self.server = server
        self.columns = columns
        self.rows = rows
        self.text = TextLayout(widths: widths)
        self.time = time
        self.idPrefix = idPrefix
    }

    /// The commands to run at start: the last user's name and avatar for the Login screen.
    public func start() -> [ChatEffect] { [.loadLastUser] }

    /// The username of the login, lowercase; empty when logged out.
    var myName: String { me?.username ?? "" }

    /// Applies one input and returns what to do about it.
    public mutating func handle(_ input: ChatInput) -> [ChatEffect] {
        switch input {
        case .key(let key):
            status = nil
            return handleKey(key)
        case .resize(let columns, let rows):
            self.columns = max(columns, 20)
            self.rows = max(rows, 8)
            if var dialogue {
                clampScroll(&dialogue)
                self.dialogue = dialogue
            }
            return []
        case .result(let result):
            return apply(result)
        case .liveReady:
            // A stream (re)started at the present: load what may have changed before it.
            var effects: [ChatEffect] = [.loadSessions, .loadContacts]
            if let open = dialogue, open.loaded {
                effects.append(.loadHistory(open.key, before: nil, limit: DialogueState.pageSize))
            }
            return effects
        case .live(let event):
            return apply(event)
        case .liveEnded(let error):
            guard let error, me != nil else { return [] }
            if case .kickedOut? = interruption { return [] }
            interruption = error.code == .kickedOut ? .kickedOut(error.message) : .loginEnded(error.message)
            return []
        }
    }

    // MARK: Keys

    private mutating func handleKey(_ key: Key) -> [ChatEffect] {
        switch key {
        case .control("c"): return [.quit]
        case .control("z"): return [.suspend]
        case .control("l"): return [.redraw]
        case .function(1):
            showHelp.toggle()
            return []
        case .alt(let character):
            // Esc typed quickly before a key arrives as one sequence: both keys were meant.
            return handleKey(.escape) + handleKey(.character(character))
        default: break
        }
        if showHelp {
            showHelp = false
            return []
        }
        if let interruption { return interruptionKey(key, interruption) }
        switch screen {
        case .login: return loginKey(key)
        case .register: return registerKey(key)
        case .sessions, .contacts, .profile: return mainKey(key)
        case .dialogue: return dialogueKey(key)
        }
    }

    private mutating func interruptionKey(_ key: Key, _ interruption: Interruption) -> [ChatEffect] {
        switch (interruption, key) {
        case (.connectionLost, .escape):
            self.interruption = nil
            offline = true
            return []
        case (.connectionLost, .character("r")):
            self.interruption = nil
            return [.startLive]
        case (.connectionLost, .character("l")):
            self.interruption = nil
            return [.logout]
        case (.kickedOut(let reason), .enter), (.loginEnded(let reason), .enter):
            resetToLogin(note: reason)
            return [.logout, .loadLastUser]
        case (_, .character("q")):
            return [.quit]
        default:
            return []
        }
    }

    /// Back to the Login screen with nothing of the last login kept in memory.
    mutating func resetToLogin(note: String?) {
        me = nil
        screen = .login
        sessions = SessionsState()
        contacts = ContactsState()
        profile = ProfileState()
        dialogue = nil
        interruption = nil
        offline = false
        login = LoginState()
        login.note = note
        register = RegisterState()
    }

    /// A new client message id.
    mutating func nextClientID() -> String {
        sendCount += 1
        return "\(idPrefix)-\(sendCount)"
    }

    // MARK: Results

    private mutating func apply(_ result: ChatResult) -> [ChatEffect] {
        // An answer to a call of a login that has ended since belongs to no screen.
        if me == nil, !result.isAboutLoggingIn { return [] }
        switch result {
        case .lastUser(let name, let user):
            if let name, login.username.isEmpty {
                login.username.set(name)
                login.focus = .password
            }
            login.savedProfile = user
            login.profileFor = name
            return []
        case .localProfile(let name, let user):
            guard name == login.username.text.lowercased() else { return [] }
            login.savedProfile = user
            login.profileFor = name
            return []
        case .loggedIn(let user):
            me = user
            screen = .sessions
            login.phase = .editing
            login.password.set("")
            login.warning = nil
            login.note = nil
            register = RegisterState()
            return [.startLive]
        case .loginFailed(let reason):
            if screen == .register { register.phase = .failed(reason) } else { login.phase = .failed(reason) }
            return []
        case .registerFailed(let reason):
            register.phase = .failed(reason)
            return []
        case .loggedOut:
            if me != nil { resetToLogin(note: "Logged out.") }
            return [.loadLastUser]
        case .sessions(let list):
            sessions.replace(list)
            return []
        case .conversation(let conversation):
            sessions.upsert(conversation)
            if let open = dialogue, open.key.id == nil, open.key.matches(DialogueKey(address: conversation.address)) {
                dialogue?.key.id = conversation.id
            }
            return []
        case .contacts(let users, let groups, let rooms):
            contacts.replace(users: users, groups: groups, rooms: rooms)
            return []
        case .history(let key, let page, let before):
            return applyHistory(key, page, before: before)
        case .historyFailed(let key, let reason):
            guard dialogue?.key.matches(key) == true else { return [] }
            dialogue?.historyFailed(reason)
            return []
        case .sent(let key, _, let message):
            return receive(message, key: key)
        case .sendFailed(let key, let clientID, let reason):
            guard dialogue?.key.matches(key) == true else { return [] }
            dialogue?.sendFailed(clientID, reason: reason)
            return []
        case .markedRead:
            return []
        case .contactAdded(let user):
            contacts.upsert(user)
            contacts.prompt = nil
            status = ("\(user.username) is now a contact", false)
            return []
        case .contactRemoved(let name):
            contacts.remove(kind: .direct, name: name)
            contacts.info = nil
            status = ("\(name) is no longer a contact", false)
            return []
        case .joined(let info):
            contacts.upsert(info)
            contacts.prompt = nil
            contacts.menu = nil
            let key = DialogueKey(address: info.address, id: info.id)
            return openDialogue(key, kind: info.kind, title: info.title, readMarker: 0, unread: 0) + [.loadConversation(info.address)]
        case .left(let kind, let name):
            contacts.remove(kind: kind, name: name)
            contacts.info = nil
            let address = ConversationAddress(kind: kind, name: name)
            sessions.remove(address)
            if dialogue?.key.address == address { closeDialogue() }
            status = ("left \(address)", false)
            return []
        case .info(let info, let members):
            contacts.upsert(info)
            if contacts.info?.item.address == info.address { contacts.info?.members = members }
            return []
        case .user(let user):
            if case .contact(let shown)? = contacts.info?.item, shown.username == user.username {
                contacts.info?.item = .contact(user)
            }
            return []
        case .infoUpdated(let info):
            contacts.upsert(info)
            contacts.info?.editing = nil
            sessions.rename(info.address, to: info.title)
            status = ("saved", false)
            return []
        case .profileUpdated(let user):
            me = user
            profile.editing = nil
            profile.saving = false
            profile.note = "Saved."
            profile.noteIsError = false
            return []
        case .failed(let message):
            profile.saving = false
            if profile.editing != nil || screen == .profile {
                profile.note = message
                profile.noteIsError = true
            }
            status = (message, true)
            return []
        }
    }
}

extension ChatResult {
    /// True for answers that matter while nobody is logged in.
    var isAboutLoggingIn: Bool {
        switch self {
        case .lastUser, .localProfile, .loggedIn, .loginFailed, .registerFailed, .loggedOut: true
        default: false
        }
    }
}
