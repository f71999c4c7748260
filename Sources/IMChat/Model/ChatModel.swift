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
}
