import IMProtocol

/// Accounts and their profiles.
public protocol AccountStore: Sendable {
    /// Creates an account; `StoreError.conflict` when the name is taken.
    func createUser(_ new: NewUser) async throws -> UserRecord
    func user(id: UserID) async throws -> UserRecord?
    func user(named username: String) async throws -> UserRecord?
    /// The accounts that exist among `usernames`, in no particular order.
    func users(named usernames: [String]) async throws -> [UserRecord]
    /// Accounts in name order after `after`, for administration.
    func listUsers(after: String?, limit: Int) async throws -> [UserRecord]
    /// Applies a profile change and tells the user's feed and their contacts' feeds.
    func updateProfile(_ userID: UserID, _ update: ProfileUpdate) async throws -> UserRecord
    /// Stores a new password hash; with `revokeTokens` every login ends.
    func setPasswordHash(_ userID: UserID, _ hash: String, revokeTokens: Bool) async throws
    /// Grants or withdraws administration.
    func setAdmin(_ userID: UserID, _ isAdmin: Bool) async throws
    /// Suspends an account (every login revoked as `suspended`, new ones refused) or lifts
    /// the suspension; returns the ids of the logins it revoked.
    func setSuspended(_ userID: UserID, _ suspended: Bool) async throws -> [Int64]
    /// Deletes an account: its logins, contacts, invitations, media and group and room
    /// memberships go (members are told it left); its messages stay, and the row keeps
    /// only the id under a name nobody can register, so the username is free again.
    /// Returns the ids of the logins it revoked.
    func deleteUser(_ userID: UserID) async throws -> [Int64]
}

/// Logins (bearer tokens), kept as hashes.
public protocol TokenStore: Sendable {
    /// Stores a new login. With a `device`, earlier live logins of the same user and device
    /// are revoked as `kicked_out` and returned.
    func createToken(
        hash: [UInt8], userID: UserID, device: String?, expiresAt: Timestamp?
    ) async throws -> (token: TokenRecord, replaced: [TokenRecord])
    /// The login with this token hash and its account, revoked or not.
    func token(hash: [UInt8]) async throws -> (TokenRecord, UserRecord)?
    func revokeToken(id: Int64, reason: String) async throws
    /// The user's logins that are neither revoked nor expired at `now`, newest first.
    func liveTokens(of userID: UserID, at now: Timestamp) async throws -> [TokenRecord]
    /// Records when logins were last used (batched by the server, not per request).
    func recordTokenUse(_ uses: [Int64: Timestamp]) async throws
    /// Deletes logins that expired or were revoked before `before`.
    func pruneTokens(before: Timestamp) async throws -> Int
}

/// Friends lists.
public protocol ContactStore: Sendable {
    func contacts(of userID: UserID) async throws -> [User]
    /// Adds a contact; false when it was already there. Both feeds get `contact_added`.
    func addContact(_ userID: UserID, _ contactID: UserID) async throws -> Bool
    func removeContact(_ userID: UserID, _ contactID: UserID) async throws -> Bool
}

/// Groups, rooms, direct conversations and their members.
public protocol ConversationStore: Sendable {
    /// Creates a group or room with its creator as the first member (`owner` in groups);
    /// `StoreError.conflict` when the name exists. `joinPolicy` matters for groups only.
    func createConversation(
        kind: ConversationKind, name: String, title: String, description: String, logoURL: String,
        creator: UserID, joinPolicy: JoinPolicy
    ) async throws -> ConversationRecord
    func conversation(id: ConversationID) async throws -> ConversationRecord?
    func conversation(kind: ConversationKind, name: String) async throws -> ConversationRecord?
    /// The direct conversation of two users, created on first use.
    func directConversation(_ a: UserID, _ b: UserID) async throws -> ConversationRecord
    func membership(_ conversationID: ConversationID, _ userID: UserID) async throws -> MembershipRecord?
    /// Lets `userID` join an invite-only group (kept until they join); false when they
    /// were invited already. `StoreError.conflict` when they are a member.
    func invite(_ userID: UserID, to conversationID: ConversationID, by inviter: UserID) async throws -> Bool
    /// True when `userID` holds an invitation to the group.
    func isInvited(_ userID: UserID, to conversationID: ConversationID) async throws -> Bool
    /// Joins a group by its rules, in one transaction: an open group takes anyone, an
    /// invite-only one only the invited (the invitation is used up).
    func join(_ conversationID: ConversationID, _ userID: UserID, change: MembershipChange) async throws -> JoinOutcome
    /// Adds a member and writes `change` (notice + event) to everyone present; false when
    /// already a member.
    func addMember(
        _ conversationID: ConversationID, _ userID: UserID, role: MemberRole, change: MembershipChange
    ) async throws -> Bool
    /// Removes a member after telling everyone, the member included; false when not one.
    /// When a group's last owner leaves, the longest-standing admin (else member) becomes
    /// owner.
    func removeMember(_ conversationID: ConversationID, _ userID: UserID, change: MembershipChange)
        async throws -> Bool
    func members(_ conversationID: ConversationID) async throws -> [Member]
    /// Changes title, logo or description and tells the members with a notice.
    func updateInfo(
        _ conversationID: ConversationID, _ update: ConversationInfoUpdate, by: UserID, notice: String
    ) async throws -> ConversationRecord
    /// The public info of a group or room.
    func info(_ record: ConversationRecord) async throws -> ConversationInfo
    /// The sessions list of one user: every conversation with its last message and unread
    /// count, unread first, then most recent.
    func conversations(for userID: UserID) async throws -> [Conversation]
    /// The groups (or rooms) a user belongs to (or is present in).
    func conversationInfos(for userID: UserID, kind: ConversationKind) async throws -> [ConversationInfo]
}

extension ConversationStore {
    /// `createConversation` for an invite-only group, or a room.
    public func createConversation(
        kind: ConversationKind, name: String, title: String, description: String, logoURL: String, creator: UserID
    ) async throws -> ConversationRecord {
        try await createConversation(
            kind: kind, name: name, title: title, description: description, logoURL: logoURL, creator: creator,
            joinPolicy: .invite)
    }
}

/// Messages and read markers.
public protocol MessageStore: Sendable {
    /// Appends a message and puts it in the feed of every member. When the sender already
    /// sent a message with the same client id, that message is returned with
    /// `duplicate: true` and nothing is written. Otherwise, with `requireMembership`, a
    /// sender who is not a member throws `.notMember` and a muted one `.muted`; a
    /// `replyTo` outside the conversation throws `.invalidReference`.
    func appendMessage(_ message: NewMessage) async throws -> (message: Message, duplicate: Bool)
    /// One message by id, deleted or not.
    func message(id: MessageID) async throws -> Message?
    /// History, newest first, strictly before `before` when given.
    func messages(_ conversationID: ConversationID, before: Int64?, limit: Int) async throws -> [Message]
    /// Moves the user's read marker forward (never back, never past the last message) and
    /// tells the user's other clients; returns the marker. `.notMember` when not a member.
    func markRead(_ conversationID: ConversationID, _ userID: UserID, seq: Int64) async throws -> Int64
}

/// The per-user event feeds (each user's events, and those of the conversations they
/// belong to while they are a member; see docs/architecture.md).
public protocol EventStore: Sendable {
    /// Identifies this database; cursors from another one are refused.
    var epoch: String { get }
    /// The newest committed feed position across all users: where a fresh cursor starts.
    var committedPosition: Int64 { get }
    /// The newest position handed out, committed or about to be. Readers may see a commit
    /// before `committedPosition` catches up, so a cursor is "from the future" only beyond
    /// this.
    var issuedPosition: Int64 { get }
    /// Whether a cursor of `epoch` at `position` names a place in these feeds: this
    /// epoch up to `issuedPosition`, or the epoch of a database this one was restored
    /// from up to the last position its backup held (`FeedEpochs`). Others get 410.
    func acceptsCursor(epoch: String, position: Int64) -> Bool
    /// Events of one user after `position`, oldest first; `.cursorTooOld` when retention
    /// already dropped events after it.
    func events(for userID: UserID, after position: Int64, limit: Int) async throws -> [Event]
    /// Drops events older than `before`, raising the feed floor of everyone who could
    /// have read one; returns how many stored events went (an event of a conversation is
    /// stored once, whatever its number of members).
    func pruneEvents(before: Timestamp) async throws -> Int
    /// Called after every commit that added feed entries (on the writing thread: keep it
    /// short).
    func observeFeeds(_ observer: @escaping @Sendable (FeedUpdate) -> Void)
}

extension EventStore {
    public func acceptsCursor(epoch: String, position: Int64) -> Bool {
        epoch == self.epoch && position <= issuedPosition
    }
}

/// Uploaded bytes (avatars), at most one copy of the same bytes per account, and none
/// that nothing shows.
public protocol MediaStore: Sendable {
    /// Makes `bytes` the user's avatar in one transaction: the same bytes uploaded before
    /// (by `sha256`, their digest) are reused, the avatar it replaces is deleted when nothing else shows it, and the
    /// profile change reaches the feeds. `StoreError.overBudget` when the account's media
    /// would pass `budget` bytes.
    func setAvatar(_ userID: UserID, contentType: String, bytes: [UInt8], sha256: [UInt8], budget: Int) async throws
        -> (UserRecord, MediaRecord)
    func media(id: String) async throws -> MediaRecord?
}

/// Everything the server stores.
public typealias IMStorage = AccountStore & TokenStore & ContactStore & ConversationStore
    & MessageStore & EventStore & MediaStore
