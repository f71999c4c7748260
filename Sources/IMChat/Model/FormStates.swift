import IMProtocol

/// The Login screen: username (pre-filled with the last one used here) and password,
/// the avatar saved for that username, warnings, the waiting state and the failure page.
public struct LoginState: Sendable, Equatable {
    /// What is focused: a field or a button.
    public enum Focus: Int, Sendable, Equatable, CaseIterable { case username, password, login, register }

    /// Editing, waiting for the server, or showing why it failed.
    public enum Phase: Sendable, Equatable {
        case editing
        case waiting
        case failed(String)
    }

    public var username = TextField("", limit: Limits.usernameLength.upperBound)
    public var password = TextField("", secret: true, limit: Limits.passwordBytes.upperBound)
    public var focus = Focus.username
    public var phase = Phase.editing
    /// A warning about the fields (empty, say).
    public var warning: String?
    /// A note after something worked (logged out, kicked out).
    public var note: String?
    /// The profile saved on this machine for the username in the field.
    public var savedProfile: User?
    /// The username `savedProfile` was looked up for.
    public var profileFor: String?

    public init() {}
}

/// The Register screen: username, password twice.
public struct RegisterState: Sendable, Equatable {
    public enum Focus: Int, Sendable, Equatable, CaseIterable { case username, password, confirm, register, back }

    public var username = TextField("", limit: Limits.usernameLength.upperBound)
    public var password = TextField("", secret: true, limit: Limits.passwordBytes.upperBound)
    public var confirm = TextField("", secret: true, limit: Limits.passwordBytes.upperBound)
    public var focus = Focus.username
    public var phase = LoginState.Phase.editing
    public var warning: String?

    public init() {}
}

/// The Profile screen: own nickname, signature, avatar; editing one of them; the
/// password; log out.
public struct ProfileState: Sendable, Equatable {
    /// The field being edited.
    public enum Field: Sendable, Equatable {
        case nickname, signature
        /// A path to an image file to upload.
        case avatar
    }

    /// Changing the password: the current one, the new one twice.
    public struct PasswordForm: Sendable, Equatable {
        public var current = TextField("", secret: true, limit: Limits.passwordBytes.upperBound)
        public var new = TextField("", secret: true, limit: Limits.passwordBytes.upperBound)
        public var confirm = TextField("", secret: true, limit: Limits.passwordBytes.upperBound)
        /// 0, 1 or 2: which field has the keys.
        public var focus = 0
    }

    public var editing: Field?
    public var field = TextField()
    /// Saving is under way.
    public var saving = false
    /// The last save's outcome.
    public var note: String?
    public var noteIsError = false
    /// Asking "log out? y/n".
    public var confirmingLogout = false
    /// The password form, while open.
    public var password: PasswordForm?

    public init() {}
}

/// A full screen for a login that ended (a lost connection is `ChatModel.Connection`).
public enum Interruption: Sendable, Equatable {
    /// Another login of this account replaced this one.
    case kickedOut(String)
    /// The login ended on the server (password changed, logged out elsewhere).
    case loginEnded(String)
}
