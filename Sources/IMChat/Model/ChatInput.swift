import IMClient
import IMProtocol

/// Everything that changes the client's state: keys, the terminal's size, the answers
/// to commands, and the live event stream.
public enum ChatInput: Sendable {
    case key(Key)
    case resize(columns: Int, rows: Int)
    case result(ChatResult)
    /// The live stream holds a cursor: what is loaded from now on cannot miss an event.
    case liveReady
    case live(LiveEvent)
    /// The live stream ended: nil when it was stopped, else why (kicked out, login ended).
    case liveEnded(IMClientError?)
    /// The terminal went away: quit at once, nobody is there to ask.
    case terminalClosed
    /// A `wake(after:)` came due: queued sends are tried again.
    case wake
}

/// What the state asks the outside world to do. The app carries commands out against
/// the server (and the local profile store) and feeds each answer back as a `ChatResult`.
public enum ChatEffect: Sendable, Equatable {
    /// The last username used on this machine, its saved profile (for the Login screen)
    /// and whether a login of it is kept here.
    case loadLastUser
    /// Logs in with the login kept for `username` (no password asked).
    case resumeLogin(String)
    case lookUpLocalProfile(String)
    case login(username: String, password: String)
    case register(username: String, password: String)
    /// Ends the login on the server, stops the live stream, remembers the username.
    case logout
    /// Starts the live event stream of the current login (stopping any before it).
    case startLive
    case loadSessions
    case loadConversation(ConversationAddress)
    case loadContacts
    case loadHistory(DialogueKey, before: Int64?, limit: Int)
    case send(DialogueKey, text: String, replyTo: MessageID?, clientID: String)
    /// Replaces the text of one of this user's messages.
    case editMessage(DialogueKey, MessageID, text: String)
    /// Deletes a message for everyone (one's own, or as a group's admin anyone's).
    case deleteMessage(DialogueKey, MessageID)
    case markRead(DialogueKey, seq: Int64)
    case addContact(String)
    case removeContact(String)
    case block(String)
    case unblock(String)
    /// Creates a group with its title and settings.
    case createGroup(CreateConversationRequest)
    /// A page of the directory of groups anyone may find.
    case loadDirectory(search: String, after: String?)
    /// Joins an open group or one this user is invited to, or asks into one that takes
    /// requests.
    case joinGroup(String)
    case declineInvite(group: String)
    /// Invites a user into a group (its owner and admins).
    case invite(group: String, user: String)
    case approveRequest(group: String, user: String)
    /// Denies someone's request, or (with this user's own name) withdraws one's own.
    case revokeRequest(group: String, user: String)
    case moderate(group: String, ModerationRequest)
    case createRoom(String)
    case enterRoom(String)
    case leave(ConversationKind, String)
    case loadInfo(ConversationKind, String)
    /// A group's members (for this user's role and mute in its open dialogue) or the
    /// people present in a room, and their nicknames (a failure says nothing: the history
    /// load shows what is wrong).
    case loadMembers(ConversationKind, String)
    case loadUser(String)
    /// Someone's profile for the status line (`/whois`).
    case whois(String)
    /// Changes the password: every other login of the account ends, this one is kept.
    case changePassword(old: String, new: String)
    case updateInfo(ConversationKind, String, ConversationInfoUpdate)
    case updateProfile(ProfileUpdate)
    case uploadAvatar(path: String)
    /// Fetches an avatar's image (its URL, or `local:<username>` for one kept here) and
    /// makes it ready to draw.
    case loadPicture(String)
    /// Rings the terminal's bell (when asked for with `--bell`).
    case bell
    /// Feeds `wake` back after `seconds`.
    case wake(after: Int)
    /// Ctrl-Z: give the terminal back to the shell until resumed.
    case suspend
    /// Ctrl-L: draw everything anew.
    case redraw
    case quit
}

/// The answer to a `ChatEffect`.
public enum ChatResult: Sendable {
    /// The last username, its saved profile, and whether a login of it is kept here.
    case lastUser(String?, User?, resumable: Bool = false)
    case localProfile(username: String, User?)
    case loggedIn(User)
    case loginFailed(String)
    case registerFailed(String)
    case loggedOut
    case sessions([Conversation])
    /// The row fetched for `requested` (by `loadConversation`).
    case conversation(Conversation, requested: ConversationAddress)
    /// The row of `requested` could not be fetched: it has none yet (a one-to-one
    /// conversation without messages, `reason` nil) or the fetch failed.
    case conversationUnavailable(ConversationAddress, reason: String?)
    case contacts(ContactLists)
    case history(DialogueKey, MessagePage, before: Int64?)
    case historyFailed(DialogueKey, String)
    case sent(DialogueKey, clientID: String, Message)
    /// A send failed; `block` says so when the server refuses this user's posts for now;
    /// `unreachable` when the server could not be reached (the message waits, queued).
    case sendFailed(DialogueKey, clientID: String, String, block: PostingBlock? = nil, unreachable: Bool = false)
    /// An edit or a deletion went through: the message as it is now.
    case messageChanged(DialogueKey, Message)
    /// An edit failed: the text comes back into the input line to try again.
    case editFailed(DialogueKey, MessageID, text: String, String, block: PostingBlock? = nil)
    case markedRead(DialogueKey, seq: Int64)
    case contactAdded(User)
    case contactRemoved(String)
    case blockChanged(String, blocked: Bool)
    /// A group or room was created, joined or entered: its dialogue opens.
    case joined(ConversationInfo)
    /// The group takes requests: this user's waits for an admin.
    case joinRequested(GroupJoinRequest)
    case invited(GroupInvite)
    /// An invitation was declined, or a request approved, denied or withdrawn.
    case settled(group: String, user: String, approved: Bool)
    case moderated(ModerationResult)
    case left(ConversationKind, String)
    case info(ConversationInfo, [Member])
    case members(ConversationKind, String, [Member])
    case user(User)
    case whois(User)
    case directory(DirectoryPage, search: String, after: String?)
    case directoryFailed(String, search: String)
    /// The password changed; this client holds the new login.
    case passwordChanged(User)
    /// An avatar's picture is ready to draw, or cannot be drawn.
    case picture(String, ready: Bool)
    case infoUpdated(ConversationInfo)
    case profileUpdated(User)
    /// A command failed; `message` says what and why.
    case failed(String)
}

/// Names one conversation: by address always (a new one-to-one conversation has no id
/// until its first message), by id once known.
public struct DialogueKey: Sendable, Hashable, CustomStringConvertible {
    /// How this user addresses it; names are lowercase.
    public var address: ConversationAddress
    public var id: ConversationID?

    /// A key; names in `address` are lowercased.
    public init(address: ConversationAddress, id: ConversationID? = nil) {
        switch address {
        case .user(let name): self.address = .user(name.lowercased())
        case .group(let name): self.address = .group(name.lowercased())
        case .room(let name): self.address = .room(name.lowercased())
        case .id: self.address = address
        }
        self.id = id
    }

    /// True when both name the same conversation.
    public func matches(_ other: DialogueKey) -> Bool {
        if let id, let otherID = other.id { return id == otherID }
        return address == other.address
    }

    public var description: String { address.description }

    /// The user's, group's or room's name in the address; nil for an id.
    public var name: String? {
        switch address {
        case .user(let name), .group(let name), .room(let name): name
        case .id: nil
        }
    }
}
