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
    /// `StoreError.conflict` when the name exists. `settings` (checked by the caller)
    /// matter for groups only; those not given take their defaults.
    func createConversation(
        kind: ConversationKind, name: String, title: String, description: String, logoURL: String,
        creator: UserID, settings: GroupSettings
    ) async throws -> ConversationRecord
    func conversation(id: ConversationID) async throws -> ConversationRecord?
    func conversation(kind: ConversationKind, name: String) async throws -> ConversationRecord?
    /// The direct conversation of two users, created on first use.
    func directConversation(_ a: UserID, _ b: UserID) async throws -> ConversationRecord
    func membership(_ conversationID: ConversationID, _ userID: UserID) async throws -> MembershipRecord?
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
    /// Changes title, logo or description, and a group's settings (checked by the caller),
    /// and tells the members with a notice (`conversation_updated`). In a group, settings
    /// are the owner's and admins' (and server administrators') to change, and so is the
    /// info unless its `infoEditableBy` is `members` (`.refused("not_group_admin")`). Rooms
    /// have no roles: the caller checks that the changer is present.
    func updateInfo(
        _ conversationID: ConversationID, _ update: ConversationInfoUpdate, by: ActingUser, notice: String
    ) async throws -> ConversationRecord
    /// The public info of a group or room.
    func info(_ record: ConversationRecord) async throws -> ConversationInfo
    /// The sessions list of one user: every conversation with its last message and unread
    /// count, unread first, then most recent.
    func conversations(for userID: UserID) async throws -> [Conversation]
    /// The groups (or rooms) a user belongs to (or is present in).
    func conversationInfos(for userID: UserID, kind: ConversationKind) async throws -> [ConversationInfo]
    /// Groups anyone may find (`open` and `approval`, never invite-only), in name order
    /// (byte order), those named after `after` when given, at most `limit`: the rows the
    /// group directory searches.
    func listedGroups(after: String?, limit: Int) async throws -> [ConversationRecord]
}

extension ConversationStore {
    /// `createConversation` for a group with the default settings (invite-only), or a room.
    public func createConversation(
        kind: ConversationKind, name: String, title: String, description: String, logoURL: String, creator: UserID
    ) async throws -> ConversationRecord {
        try await createConversation(
            kind: kind, name: name, title: title, description: description, logoURL: logoURL, creator: creator,
            settings: GroupSettings())
    }
}

/// Messages and read markers.
public protocol MessageStore: Sendable {
    /// Appends a message and puts it in the feed of every member. When the sender already
    /// sent a message with the same client id, that message is returned with
    /// `duplicate: true` and nothing is written. Otherwise, with `requireMembership`, a
    /// sender who is not a member throws `.notMember`, a muted one `.muted`, a restricted
    /// newcomer `.restricted`, a member of a group in slow mode who posted less than its
    /// interval ago `.slowMode` (owner and admins are not slowed), and someone blocked by
    /// the other side of a one-to-one conversation `.blocked`, all checked in the append's
    /// transaction; a `replyTo` outside the conversation throws `.invalidReference`.
    func appendMessage(_ message: NewMessage) async throws -> (message: Message, duplicate: Bool)
    /// One message by id, deleted or not.
    func message(id: MessageID) async throws -> Message?
    /// History, newest first: messages with a `seq` above `after` (someone in a room reads
    /// from their entering on: `MembershipRecord.joinedSeq`) and below `before` when given.
    func messages(_ conversationID: ConversationID, after: Int64, before: Int64?, limit: Int) async throws -> [Message]
    /// Moves the user's read marker forward (never back, never past the last message) and
    /// tells the user's other clients; returns the marker. `.notMember` when not a member.
    func markRead(_ conversationID: ConversationID, _ userID: UserID, seq: Int64) async throws -> Int64
}

extension MessageStore {
    /// The whole history, newest first, strictly before `before` when given.
    public func messages(_ conversationID: ConversationID, before: Int64?, limit: Int) async throws -> [Message] {
        try await messages(conversationID, after: 0, before: before, limit: limit)
    }
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
    /// short), in position order; where several server nodes write, also for the other
    /// nodes' commits (their updates carry no messages: the feeds are read).
    func observeFeeds(_ observer: @escaping @Sendable (FeedUpdate) -> Void)
    /// The newest position handed out by any writer of the database, asked afresh. Where
    /// several server nodes write, a cursor one of them handed out can be past another's
    /// `issuedPosition` until that one hears of the commit.
    func newestIssuedPosition() async throws -> Int64

    /// Where a fresh cursor starts: every position up to it is committed, and this node
    /// tells its parked polls of every commit after it.
    func freshCursorPosition() async throws -> Int64
}

extension EventStore {
    /// `issuedPosition`: one writer knows of every position it handed out.
    public func newestIssuedPosition() async throws -> Int64 { issuedPosition }

    /// `committedPosition`: one writer has told of every commit.
    public func freshCursorPosition() async throws -> Int64 { committedPosition }
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

// MARK: - Groups with doors (schema version 4)
//
// Everything below came with schema version 4: editing and deleting messages, group
// roles and moderation, invitations and join requests, bans, group settings and blocks.
// Each method does its checks and its writes in one transaction (who may act is read in
// the same transaction as the act, so a concurrent demotion or ban cannot be slipped
// past), and writes its events the way the feed layout says: an event of a conversation
// once, read through membership; a user's own event in `user_events`.

/// Changing and deleting messages after they were sent.
public protocol MessageEditStore: Sendable {
    /// Replaces the text of a chat message by its sender and sets `editedAt`; every member
    /// gets `message_edited`. `.notMember` when the editor is not a member, `.notFound`
    /// when the message is not in the conversation, `.refused("not_sender")` for anyone
    /// but the sender, `.muted` while they are muted, `.invalidState` for a deleted one.
    /// The same text again changes nothing and writes no event.
    func editMessage(_ edit: MessageEdit) async throws -> Message
    /// Empties a chat message's text and sets `deletedAt`, for everyone and every later
    /// read; every member gets `message_deleted` (with `by`). The sender may, and in a
    /// group its admins and owner and server administrators, who also leave `notice` in
    /// the group; `.refused("not_sender")` for anyone else, `.invalidState` for a system
    /// notice. Deleting a deleted message returns it and writes nothing.
    func deleteMessage(_ deletion: MessageDeletion) async throws -> Message
}

/// Roles, moderation and bans in groups. Who may do what is `GroupRules` (shared by
/// every store): members moderate nobody, admins moderate members, the owner also
/// moderates admins, promotes, demotes and hands the group over, and server
/// administrators stand above the owner in every group.
public protocol GroupModerationStore: Sendable {
    /// Carries out one act and leaves its notice; returns what changed (nothing for an
    /// act with nothing to do: no event then). `.refused` (`not_group_admin`,
    /// `not_group_owner`, `outranked`) when the actor may not; `.notFound` when the target
    /// must be a member and is not; `.invalidState` when demoting the owner.
    ///
    /// - mute: sets the member's mute (until `until`, else until unmuted): `member_muted`.
    /// - unmute: lifts a mute and a newcomer's restriction: `member_unmuted`.
    /// - kick: removes the member: `member_kicked` (read by them too, as their last).
    /// - ban: records the ban (replacing an earlier one), drops the target's invitation
    ///   and join request, and removes them if they are a member: `member_banned`.
    /// - unban: ends a ban in force: `member_unbanned`.
    /// - promote, demote: member to admin and back: `role_changed` (with `role`).
    /// - transfer: the target becomes owner (a server administrator naming themselves
    ///   joins as owner), every owner before becomes admin: `role_changed` for each.
    func moderate(_ act: ModerationAct) async throws -> ModerationOutcome
    /// The bans in force in a group, oldest first.
    func bans(_ conversationID: ConversationID) async throws -> [BanRecord]
    /// The ban of one account in force now, if any.
    func activeBan(_ conversationID: ConversationID, _ userID: UserID) async throws -> BanRecord?
}

/// Who gets into a group: invitations, join requests, and joining by the group's policy.
/// Invitations and requests are events of the group (with `tellingOutsider`: also of the
/// account they are about, who is not a member yet); clients that start from the present
/// list the pending ones.
public protocol GroupAdmissionStore: Sendable {
    /// Invites an account (kept until they join, decline or an admin withdraws it); false
    /// when they were invited already. The group's owner and admins may, and server
    /// administrators (`.refused` otherwise); `.conflict` for a member, `.invalidState`
    /// for someone banned. `member_invited` with `notice`.
    func invite(_ userID: UserID, to conversationID: ConversationID, by inviter: ActingUser, notice: String)
        async throws -> Bool
    /// True when `userID` holds an invitation to the group.
    func isInvited(_ userID: UserID, to conversationID: ConversationID) async throws -> Bool
    /// The group's pending invitations, oldest first.
    func invitations(to conversationID: ConversationID) async throws -> [GroupInvite]
    /// An account's pending invitations, oldest first.
    func invitations(for userID: UserID) async throws -> [GroupInvite]
    /// Withdraws an invitation (admins) or declines it (the invited); false when there was
    /// none. `invite_revoked` with `notice`.
    func revokeInvitation(of userID: UserID, to conversationID: ConversationID, by actor: ActingUser, notice: String)
        async throws -> Bool
    /// Joins a group by its policy, in one transaction: an invitation lets anyone in (and
    /// is used up); without one an open group takes anyone, an approval group records a
    /// request (`join_requested`, once), an invite-only group nobody. A ban keeps everyone
    /// out. The member's `member_joined` says how (`via`), and a request of theirs goes; in
    /// a group whose newcomers are `restricted` they join unable to post. Rooms take anyone.
    func join(_ conversationID: ConversationID, _ userID: UserID, change: MembershipChange) async throws -> JoinOutcome
    /// The group's pending join requests, oldest first.
    func joinRequests(to conversationID: ConversationID) async throws -> [GroupJoinRequest]
    /// An account's pending join requests, oldest first.
    func joinRequests(for userID: UserID) async throws -> [GroupJoinRequest]
    /// Lets someone who asked in (admins; `.refused` otherwise): `member_joined` with `via:
    /// approval`, `by` and `notice`. False when there was no request.
    func approveJoinRequest(of userID: UserID, to conversationID: ConversationID, by approver: ActingUser, notice: String)
        async throws -> Bool
    /// Denies a request (admins) or withdraws it (the one asking); false when there was
    /// none. `join_request_revoked`.
    func revokeJoinRequest(of userID: UserID, to conversationID: ConversationID, by actor: ActingUser) async throws
        -> Bool
}

/// Whom a user takes no one-to-one messages from. A send (or edit) of a blocked user into
/// a one-to-one conversation with the blocker throws `.blocked`; nobody is told of a block.
public protocol BlockStore: Sendable {
    /// Blocks `blockedID` for `userID`; false when it was already. `.notFound` for no account.
    func block(_ userID: UserID, _ blockedID: UserID) async throws -> Bool
    /// Lifts a block; false when there was none.
    func unblock(_ userID: UserID, _ blockedID: UserID) async throws -> Bool
    /// The accounts `userID` blocks, by name.
    func blocked(by userID: UserID) async throws -> [User]
}

/// Notices (schema version 9): replies only one member of a conversation sees, stored
/// as an event of that member's feed alone, so they are in nobody's history, unread count
/// or last message, and go when retention prunes the feed's events.
public protocol NoticeStore: Sendable {
    /// Stores a notice and puts it, as a `notice` event, into its recipient's feed only.
    /// When the sender already sent one with the same client id (and its event is still
    /// kept), that notice is returned with `duplicate: true` and nothing is written.
    /// Otherwise, in one transaction: a sender who is not a member throws `.notMember`, a
    /// muted one `.muted` (restricted: `.restricted`); a recipient who is not a member
    /// `.refused("recipient_not_member")`, one who blocks the sender `.refused("blocked")`;
    /// a `replyTo` outside the conversation `.invalidReference`; the text is charged to the
    /// sender's `quota` as a message's is. Who may send notices at all (bots, server
    /// administrators) is the caller's to check.
    func sendNotice(_ notice: NewNotice) async throws -> (notice: Notice, duplicate: Bool)
}

/// A notice to store (`NoticeStore`).
public struct NewNotice: Sendable, Hashable {
    public var conversationID: ConversationID
    public var senderID: UserID
    public var recipientID: UserID
    public var text: String
    public var clientID: String
    public var replyTo: MessageID?
    /// The sender's daily quota, charged in the same transaction (nil: not counted).
    public var quota: MessageQuota?

    public init(
        conversationID: ConversationID, senderID: UserID, recipientID: UserID, text: String, clientID: String,
        replyTo: MessageID? = nil, quota: MessageQuota? = nil
    ) {
        self.conversationID = conversationID
        self.senderID = senderID
        self.recipientID = recipientID
        self.text = text
        self.clientID = clientID
        self.replyTo = replyTo
        self.quota = quota
    }
}

/// Everything the server stores.
public typealias IMStorage = AccountStore & TokenStore & ContactStore & ConversationStore
    & MessageStore & EventStore & MediaStore & MessageEditStore & GroupModerationStore & GroupAdmissionStore
    & BlockStore & BotJournalStore & TelegramBotStore & NoticeStore

/// A store a server opens, uses and closes: SQLite (`SQLiteStore`) or PostgreSQL
/// (`PostgresStore`).
public protocol ServerStore: AccountStore, TokenStore, ContactStore, ConversationStore, MessageStore, EventStore,
    MediaStore, MessageEditStore, GroupModerationStore, GroupAdmissionStore, BlockStore, BotJournalStore,
    TelegramBotStore, NoticeStore
{
    /// Finishes queued work and closes.
    func close() async
}
