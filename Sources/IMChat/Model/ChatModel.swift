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

    /// The live connection, the one state the title bar, the status line and the
    /// "Connection lost" screen all show.
    public enum Connection: Sendable, Equatable {
        /// The stream is (re)starting.
        case connecting
        case online
        /// The server cannot be reached; the stream tries again in `retryIn` seconds.
        case lost(String, retryIn: Int)
    }

    /// What the input line held when its conversation was left.
    public struct Draft: Sendable, Equatable {
        public var text: String
        public var replyTo: Message?
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
    /// A kick-out or an ended login, in front of everything.
    public var interruption: Interruption?
    public var connection = Connection.connecting
    /// The "Connection lost" screen was put aside (Esc): the title bar still says so.
    public var lostDismissed = false
    /// A question before something that cannot be undone at once.
    public var confirmation: Confirmation?
    /// Messages typed and not yet stored.
    public var outbox = Outbox()
    /// Input lines of conversations not open, by address.
    public var drafts: [String: Draft] = [:]
    /// Notices to this user (only they see them), by conversation, oldest first: the
    /// newest `ChatModel.noticesKept` of each since this run began.
    public var notices: [ConversationID: [Notice]] = [:]
    /// Nicknames by username, from every list and event that carries one.
    public var nicknames: [String: String] = [:]
    /// Ring the bell for a message that arrives out of sight.
    public var bell = false
    /// How the terminal draws pictures; avatars are initials without.
    public var graphics = TerminalGraphics.none
    /// Avatars whose pictures are ready to draw, and those asked for.
    public var pictures: Set<String> = []
    private var picturesAsked: Set<String> = []
    public var showHelp = false
    /// The help shows the slash commands (`/help`) instead of the keys.
    public var showCommands = false
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

    /// True while the live connection works.
    public var isOnline: Bool { connection == .online }

    /// Applies one input and returns what to do about it.
    public mutating func handle(_ input: ChatInput) -> [ChatEffect] {
        let effects = apply(input)
        guard graphics != .none else { return effects }
        // Pictures of the avatars now on screen that nobody asked for yet.
        let wanted = picturesOnScreen.filter { !picturesAsked.contains($0) }
        picturesAsked.formUnion(wanted)
        return effects + wanted.map(ChatEffect.loadPicture)
    }

    /// The large avatars the screen in front shows: the Login screen's saved one, this
    /// user's on Profile, a contact's, group's or room's on its info page.
    var picturesOnScreen: [String] {
        switch screen {
        case .login:
            guard let saved = login.savedProfile, login.profileFor == saved.username, !saved.avatarURL.isEmpty else { return [] }
            return ["local:" + saved.username]
        case .profile:
            return me.map { $0.avatarURL.isEmpty ? [] : [$0.avatarURL] } ?? []
        case .contacts:
            switch contacts.info?.item {
            case .contact(let user)?: return user.avatarURL.isEmpty ? [] : [user.avatarURL]
            case .group(let info)?, .room(let info)?: return info.logoURL.isEmpty ? [] : [info.logoURL]
            default: return []
            }
        default:
            return []
        }
    }

    /// `key` when its picture is ready to draw.
    func picture(_ key: String?) -> String? {
        guard let key, graphics != .none, pictures.contains(key) else { return nil }
        return key
    }

    private mutating func apply(_ input: ChatInput) -> [ChatEffect] {
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
            return followUp()
        case .result(let result):
            return apply(result)
        case .liveReady:
            // A stream (re)started at the present: load what may have changed before it.
            var effects: [ChatEffect] = [.loadSessions, .loadContacts]
            if let open = dialogue, open.loaded {
                effects.append(.loadHistory(open.key, before: nil, limit: DialogueState.pageSize))
            }
            return effects + connected()
        case .live(let event):
            return apply(event)
        case .liveEnded(let error):
            guard let error, me != nil else { return [] }
            if case .kickedOut? = interruption { return [] }
            interruption = error.code == .kickedOut ? .kickedOut(error.message) : .loginEnded(error.message)
            return []
        case .terminalClosed:
            return [.quit]
        case .wake:
            return me == nil ? [] : dispatchSends()
        }
    }

    /// The connection works (again): the lost screen closes and queued sends go.
    mutating func connected() -> [ChatEffect] {
        if case .lost = connection { status = ("connected again", false) }
        connection = .online
        lostDismissed = false
        return dispatchSends()
    }

    // MARK: Keys

    private mutating func handleKey(_ key: Key) -> [ChatEffect] {
        if let question = confirmation { return confirmationKey(key, question) }
        switch key {
        case .control("c"):
            confirmation = .quit
            return []
        case .control("z"): return [.suspend]
        case .control("l"): return [.redraw]
        case .function(1):
            showHelp.toggle()
            showCommands = false
            return []
        default: break
        }
        if showHelp {
            showHelp = false
            return []
        }
        if let interruption { return interruptionKey(key, interruption) }
        if case .lost = connection, !lostDismissed, me != nil { return connectionLostKey(key) }
        if me != nil, let effects = switchKey(key) { return effects }
        switch screen {
        case .login: return loginKey(key)
        case .register: return registerKey(key)
        case .sessions, .contacts, .profile: return mainKey(key)
        case .dialogue: return dialogueKey(key)
        }
    }

    /// `y` does what was asked about; any other key leaves things as they are.
    private mutating func confirmationKey(_ key: Key, _ question: Confirmation) -> [ChatEffect] {
        confirmation = nil
        let yes = key == .character("y") || key == .character("Y") || (question == .quit && key == .control("c"))
        guard yes else {
            if case .unknownCommand = question { status = ("not sent: the line is still there to edit", false) }
            return []
        }
        switch question {
        case .quit: return [.quit]
        case .logout: return [.logout]
        case .block(let name): return [.block(name)]
        case .removeContact(let name): return [.removeContact(name)]
        case .leave(let kind, let name): return [.leave(kind, name)]
        case .unknownCommand(_, let line): return sendTyped([line])
        case .split(let text, _): return sendTyped(MessageSplitter.split(text))
        }
    }

    private mutating func interruptionKey(_ key: Key, _ interruption: Interruption) -> [ChatEffect] {
        switch (interruption, key) {
        case (.kickedOut(let reason), .enter), (.loginEnded(let reason), .enter):
            // The login kept here is forgotten first: its answer (`loggedOut`) then loads
            // the Login screen's last user, which must not find it to resume.
            resetToLogin(note: reason)
            return [.logout]
        case (_, .character("q")):
            confirmation = .quit
            return []
        default:
            return []
        }
    }

    /// The "Connection lost" screen takes Enter (try again now) and Esc (put it aside);
    /// any other key puts it aside too and goes on to the screen below, so nothing typed
    /// while the connection went is lost to it (and no single letter there logs out or
    /// quits).
    private mutating func connectionLostKey(_ key: Key) -> [ChatEffect] {
        switch key {
        case .enter:
            connection = .connecting
            return [.startLive]
        case .escape:
            lostDismissed = true
            return []
        default:
            lostDismissed = true
            return handleKey(key)
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
        connection = .connecting
        lostDismissed = false
        confirmation = nil
        outbox.removeAll()
        drafts = [:]
        notices = [:]
        nicknames = [:]
        login = LoginState()
        login.note = note
        register = RegisterState()
    }

    /// A new client message id.
    mutating func nextClientID() -> String {
        sendCount += 1
        return "\(idPrefix)-\(sendCount)"
    }

    /// The name to show for `username`: their nickname when known.
    public func displayName(_ username: String) -> String {
        let name = username.lowercased()
        if name == myName, let me { return me.nickname.isEmpty ? me.username : me.nickname }
        return nicknames[name].flatMap { $0.isEmpty ? nil : $0 } ?? username
    }

    /// Remembers nicknames from users seen anywhere.
    mutating func learn(_ users: [User]) {
        for user in users { nicknames[user.username.lowercased()] = user.nickname }
    }
}
