import MatrixClient

/// Where a bot lives: on a Switchboard server (the default), or on a Matrix homeserver.
///
/// The rule engine, journal, outbox, budgets, audit and metrics are the same on both;
/// only the feed the events come from and the effects actions have differ. A rule that
/// uses what its platform cannot do is a `check` error (``unsupportedActions``).
public enum BotPlatform: Sendable, Hashable {
    /// The Switchboard server of the runner's configuration.
    case switchboard
    /// A Matrix homeserver.
    case matrix(MatrixAccount)

    /// The name written in bot files.
    public var name: String {
        switch self {
        case .switchboard: "switchboard"
        case .matrix: "matrix"
        }
    }

    /// The actions this platform cannot carry out, with why. Empty for both: on Matrix
    /// each action has its nearest equivalent (docs/matrix.md says which); what a Matrix
    /// bot file cannot ask for is checked with the file (``BotDefinition``'s platform check).
    public var unsupportedActions: [ActionKind: String] {
        switch self {
        case .switchboard, .matrix: [:]
        }
    }
}

/// A bot's login on a Matrix homeserver, as its bot file gives it: never the secret
/// itself, only where the runner reads it (an environment variable or a 0600 file).
public struct MatrixAccount: Sendable, Hashable {
    /// Where the bot's password or access token comes from.
    public enum Credential: Sendable, Hashable {
        /// The password, from this environment variable (`password_env`).
        case passwordVariable(String)
        /// An access token, from this environment variable (`token_env`).
        case tokenVariable(String)
        /// An access token, the first line of this file, which must be mode 0600
        /// (`token_file`; an absolute path, resolved from the bot file's folder).
        case tokenFile(String)
    }

    /// What to do with invitations to rooms.
    public enum Invites: String, Sendable, Hashable, CaseIterable {
        /// Join every room the bot is invited to.
        case accept
        /// Stay out of rooms the bot is only invited to (it joins those listed in `rooms`).
        case ignore
    }

    /// The homeserver's base URL, e.g. `https://matrix.example.org`.
    public var homeserver: String
    /// The bot's user id, `@helpdesk:example.org`.
    public var user: MatrixUserID
    public var credential: Credential
    /// The device to log in as (keeps transaction ids, and so exactly-once replies,
    /// across restarts); nil: `SWITCHBOARD-<BOT>`.
    public var device: String?
    /// The Matrix room of each Switchboard group or room name the file uses (`join:
    /// [group:support]`, `send: {to: group:oncall}`), so a bot file moves to Matrix with
    /// only its platform block changed. The bot joins these rooms at start.
    public var rooms: [String: MatrixRoomAddress]
    public var invites: Invites

    public init(homeserver: String, user: MatrixUserID, credential: Credential, device: String? = nil,
                rooms: [String: MatrixRoomAddress] = [:], invites: Invites = .ignore) {
        self.homeserver = homeserver
        self.user = user
        self.credential = credential
        self.device = device
        self.rooms = rooms
        self.invites = invites
    }
}
