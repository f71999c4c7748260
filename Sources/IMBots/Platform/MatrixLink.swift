import IMClient
import IMProtocol
import Logging
import MatrixClient
import Synchronization

/// A Matrix bot's way to its homeserver: the login, the rooms its file names, its direct
/// chats (where notices and verification questions go), the moderation acts as Matrix
/// does them, and the translation between Matrix's string ids and the numeric ids of the
/// rule engine's events (conversations, messages, users), so that the engine, journal
/// and outbox work on Matrix events as on Switchboard's.
///
/// A number is a 63-bit hash of the Matrix id (FNV-1a): the same id always gives the
/// same number, across restarts too. The way back (number → Matrix id) is kept in memory
/// for rooms (all of them) and for recent messages (a bounded table: a reply to a
/// message older than it loses its quote, nothing else).
final class MatrixLink: Sendable {
    let account: MatrixAccount
    let client: MatrixClient
    private let secret: MatrixSecret
    private let device: String
    /// Where the direct chats it makes and its rooms' slow modes are kept.
    let journal: BotJournal
    private let names = Mutex(Names())
    /// Direct chats being made, by user: one at a time per user, however many sends wait.
    private let making = Mutex<[String: Task<String, any Error>]>([:])
    private let logger: Logger
    /// Whether the log said that a profile change had fields Matrix has no place for.
    private let toldUnplaced = Mutex(false)
    /// Each room's power, as read last, with when (the runner's seconds).
    private let powers = Mutex<[String: (power: RoomPower, at: Double)]>([:])

    /// How long a room's power levels are used before they are read again.
    static let powerTTL: Double = 10

    /// The most messages whose Matrix ids are kept for replies and redactions.
    static let rememberedMessages = 10_000
    /// The most edits kept per message, redacted with it.
    static let rememberedEdits = 20

    private struct Names {
        var rooms: [Int64: String] = [:]
        /// Room ids of the names the file uses (`group:support` → `!abc:server`).
        var named: [String: String] = [:]
        var nameOfRoom: [String: String] = [:]
        var messages: [Int64: String] = [:]
        var messageOrder: [Int64] = []
        /// Display names by user id (a bounded table, as messages).
        var displayNames: [String: String] = [:]
        /// Direct chats: room id → the other user, and the room the bot writes each user in.
        var directUser: [String: String] = [:]
        var directRoom: [String: String] = [:]
        /// The edits (`m.replace` events) of people's messages, by the message's number:
        /// redacted with it.
        var edits: [Int64: [String]] = [:]
        /// User ids by number (notices name their addressee by number).
        var users: [Int64: String] = [:]
    }

    /// Keeps display names for `{{sender.nickname}}`; past the bound the table starts over.
    func learn(displayNames: [String: String]) {
        guard !displayNames.isEmpty else { return }
        names.withLock { names in
            if names.displayNames.count + displayNames.count > Self.rememberedMessages { names.displayNames = [:] }
            names.displayNames.merge(displayNames) { _, new in new }
        }
    }

    /// The name to show for `user`: their display name, else their id's local part.
    func nickname(of user: String) -> String {
        names.withLock { $0.displayNames[user] } ?? MatrixUserID(user)?.localpart ?? user
    }

    init(account: MatrixAccount, secret: MatrixSecret, device: String, journal: BotJournal, logger: Logger,
         transport: any HTTPTransport, sleep: @escaping SleepFunction) {
        self.logger = logger
        self.account = account
        self.secret = secret
        self.device = device
        self.journal = journal
        client = MatrixClient(homeserver: account.homeserver, transport: transport,
                              configuration: MatrixClient.Configuration(retry: .never, sleep: sleep))
    }

    /// A stable number for a Matrix id.
    static func number(_ id: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in id.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return Int64(bitPattern: hash & 0x7FFF_FFFF_FFFF_FFFF) | 1
    }

    /// Logs in (password or token, on the bot's device) and joins the rooms the file
    /// names; returns who the bot is.
    func connect() async throws(IMClientError) -> BotContext.Identity {
        let session: MatrixSession
        switch secret {
        case .password(let password):
            session = try await client.login(user: account.user.rawValue, password: password, deviceID: device,
                                             deviceName: "switchboard")
        case .accessToken(let token):
            session = try await client.login(accessToken: token, deviceID: account.device)
        }
        for (name, room) in account.rooms.sorted(by: { $0.key < $1.key }) {
            let roomID = try await client.join(room)
            names.withLock {
                $0.named[name] = roomID
                $0.nameOfRoom[roomID] = name
                $0.rooms[Self.number(roomID)] = roomID
            }
        }
        // The direct chats it made (its journal), then those its account data lists.
        for (user, room) in journal.state.matrix.direct { learnDirect(room, with: user) }
        if let listed = try? await client.directRooms() {
            for (room, user) in listed.sorted(by: { $0.key < $1.key }) { learnDirect(room, with: user) }
        }
        return BotContext.Identity(username: session.userID.rawValue, id: UserID(rawValue: Self.number(session.userID.rawValue)),
                                   nickname: session.userID.localpart)
    }

    /// The rule engine's event for a Matrix event, or nil for one it has no event for
    /// (the bot's own, state changes other than membership, notices of other bots).
    ///
    /// People's edits (`m.replace`) are `message_edited` events of the message they edit;
    /// a member's `join` is `member_joined` (`via: invite` when it answers an invitation, a
    /// knock let in included), unless it follows a `join` (a new display name); their
    /// `knock` is `join_requested`; their own `leave` from the room is `member_left`.
    func event(_ item: MatrixRoomEvent, position: Int64, me: String) -> Event? {
        let event = item.event
        if event.type == "m.room.power_levels" { powerChanged(in: item.roomID) }
        guard event.sender != me, let eventID = event.eventID else { return nil }
        let at = Timestamp(milliseconds: event.originServerTS ?? 0)
        let conversation = self.conversation(item.roomID)
        let senderNumber = Self.number(event.sender)
        names.withLock { names in
            if names.users.count >= Self.rememberedMessages { names.users = [:] }
            names.users[senderNumber] = event.sender
        }
        let user = User(id: UserID(rawValue: senderNumber), username: event.sender,
                        nickname: nickname(of: event.sender), createdAt: at)
        switch event.type {
        case "m.room.message":
            if let original = event.replaces {
                // An edit: the message it edits, with its new text.
                guard event.content["m.new_content"]?["msgtype"]?.string ?? "m.text" == "m.text",
                      let text = event.newBody else { return nil }
                let id = remember(original)
                names.withLock { names in
                    names.edits[id, default: []].append(eventID)
                    // Redacting the message hides its edits in clients; the latest few are
                    // redacted too, and one message edited without end cannot grow the table.
                    if names.edits[id]!.count > Self.rememberedEdits { names.edits[id]!.removeFirst() }
                }
                let message = Message(id: MessageID(rawValue: id), conversationID: conversation.id, seq: position,
                                      sender: event.sender, senderID: UserID(rawValue: senderNumber), text: text,
                                      createdAt: at)
                return Event(position: position, type: .messageEdited, at: at, conversation: conversation,
                             message: message, user: user)
            }
            // Notices are what bots send, never answered.
            guard event.messageType == "m.text", let body = event.body else { return nil }
            let id = remember(eventID)
            let message = Message(id: MessageID(rawValue: id), conversationID: conversation.id, seq: position,
                                  sender: event.sender, senderID: UserID(rawValue: senderNumber), text: body,
                                  createdAt: at)
            return Event(position: position, type: .message, at: at, conversation: conversation, message: message,
                         user: user)
        case "m.room.member":
            guard let member = event.stateKey, member == event.sender else { return nil }
            let joined = User(id: UserID(rawValue: Self.number(member)), username: member,
                              nickname: event.content["displayname"]?.string ?? nickname(of: member),
                              createdAt: at)
            let before = event.previousMembership
            switch event.membership {
            case "join"? where before != "join":
                return Event(position: position, type: .memberJoined, at: at, conversation: conversation, user: joined,
                             via: before == "invite" ? .invite : .open)
            case "knock"?:
                return Event(position: position, type: .joinRequested, at: at, conversation: conversation, user: joined)
            case "leave"? where before == "join":
                return Event(position: position, type: .memberLeft, at: at, conversation: conversation, user: joined)
            default:
                return nil
            }
        default:
            return nil
        }
    }

    /// The conversation of a room: the file's name for it (`group:support`) when it has
    /// one, else its number.
    private func conversation(_ roomID: String) -> ConversationRef {
        let number = Self.number(roomID)
        let (name, other) = names.withLock { names -> (String?, String?) in
            names.rooms[number] = roomID
            return (names.nameOfRoom[roomID], names.directUser[roomID])
        }
        let id = ConversationID(rawValue: number)
        if let name { return ConversationRef(id: id, kind: .group, address: .group(name)) }
        if let other { return ConversationRef(id: id, kind: .direct, address: .user(other)) }
        return ConversationRef(id: id, kind: .group, address: .id(id))
    }

    private func remember(_ eventID: String) -> Int64 {
        let number = Self.number(eventID)
        names.withLock { names in
            guard names.messages.updateValue(eventID, forKey: number) == nil else { return }
            names.messageOrder.append(number)
            while names.messageOrder.count > Self.rememberedMessages {
                let old = names.messageOrder.removeFirst()
                names.messages[old] = nil
                names.edits[old] = nil
            }
        }
        return number
    }

    /// The room of a conversation address: a group's room, a room by number, the direct
    /// chat with a user (made when there is none yet), a room written as itself that the
    /// bot is in; `NOT_FOUND` for one the bot does not know.
    func roomID(of address: ConversationAddress) async throws(IMClientError) -> String {
        if case .user(let user) = address { return try await directRoom(with: user) }
        if let found = knownRoomID(of: address) { return found }
        if let room = address.matrixRoom { return try await roomTheBotIsIn(room) }
        throw IMClientError(.api(.notFound), "\(address) has no Matrix room: name it under platform.matrix.rooms")
    }

    /// A room written as itself that the file does not name (a rendered `to:`), when the
    /// bot is in it already: it joins only the rooms its file names and, by its invite
    /// policy, those it is invited to, never one that a message's text names.
    private func roomTheBotIsIn(_ room: MatrixRoomAddress) async throws(IMClientError) -> String {
        let id = try await client.roomID(of: room)
        if names.withLock({ $0.rooms[Self.number(id)] == id }) { return id }
        guard try await client.joinedRooms().contains(id) else {
            throw IMClientError(.api(.notFound), "the bot is not in \(room): it joins the rooms its file names "
                                + "(and, with invites: accept, those it is invited to)")
        }
        names.withLock { $0.rooms[Self.number(id)] = id }
        return id
    }

    /// The room of an address the bot knows already (never makes a direct chat).
    func knownRoomID(of address: ConversationAddress) -> String? {
        names.withLock { names -> String? in
            switch address {
            case .group(let name), .room(let name): names.named[name.lowercased()]
            case .id(let id): names.rooms[id.rawValue]
            case .user(let user): names.directRoom[user]
            }
        }
    }

    /// The file's name of a room (`lobby` for `group:lobby`), nil for other rooms.
    func name(ofRoom roomID: String) -> String? { names.withLock { $0.nameOfRoom[roomID] } }

    /// Notes a direct chat with `user` (the first one known for them is the one written in).
    func learnDirect(_ roomID: String, with user: String) {
        names.withLock { names in
            guard names.nameOfRoom[roomID] == nil else { return }
            names.directUser[roomID] = user
            names.rooms[Self.number(roomID)] = roomID
            if names.directRoom[user] == nil { names.directRoom[user] = roomID }
        }
    }

    /// The direct chat with `user`: known, or made now (invited, `is_direct`), kept in the
    /// journal (a restart writes in it again) and listed in the bot's `m.direct`.
    private func directRoom(with user: String) async throws(IMClientError) -> String {
        if let known = names.withLock({ $0.directRoom[user] }) { return known }
        guard let userID = MatrixUserID(user) else {
            throw IMClientError(.invalidArgument, "'\(user)' is not a Matrix user id: no direct chat with them")
        }
        let task = making.withLock { making -> Task<String, any Error> in
            if let running = making[user] { return running }
            let task = Task { [client, journal] () async throws -> String in
                let roomID = try await client.createRoom(NewRoom(preset: "trusted_private_chat", invite: [userID],
                                                                 isDirect: true))
                journal.record(.matrix(.direct(user, roomID)))
                self.learnDirect(roomID, with: user)
                // Clients find it as a direct chat by this list; the journal has it anyway.
                try? await client.addDirectRoom(roomID, with: userID)
                return roomID
            }
            making[user] = task
            return task
        }
        defer { _ = making.withLock { $0.removeValue(forKey: user) } }
        do {
            return try await task.value
        } catch let error as IMClientError {
            throw error
        } catch {
            throw IMClientError.cancelled
        }
    }

    /// Sends a reply or message: `m.text`, as a reply when it quotes, with the journal's
    /// client message id as the transaction id (so a repeat after a crash is one event).
    func send(_ message: PendingMessage, to address: ConversationAddress) async throws(IMClientError) {
        _ = try await post(message, to: address)
    }

    /// Sends a message and returns its number (for a living message's later edits).
    ///
    /// A notice (a reply only its addressee sees) has no Matrix counterpart: it is an
    /// `m.notice` in the bot's direct chat with them.
    func post(_ message: PendingMessage, to address: ConversationAddress) async throws(IMClientError) -> MessageID {
        if let notice = message.notice {
            let roomID = try await directRoom(with: addressee(of: notice))
            let eventID = try await client.sendText(message.text, to: roomID, kind: .notice,
                                                    transactionID: message.clientMessageID)
            return MessageID(rawValue: remember(eventID))
        }
        let roomID = try await roomID(of: address)
        let replyTo = message.replyTo.flatMap { id in names.withLock { $0.messages[id.rawValue] } }
        let eventID = try await client.sendText(message.text, to: roomID, replyTo: replyTo,
                                                transactionID: message.clientMessageID)
        return MessageID(rawValue: remember(eventID))
    }

    /// The user id of a notice's addressee (a notice names them by number): one the feed
    /// showed, else the member of the notice's room with that number (a notice left in
    /// the outbox by a restart).
    private func addressee(of notice: NoticeRecipient) async throws(IMClientError) -> String {
        if let known = names.withLock({ $0.users[notice.user.rawValue] }) { return known }
        if let roomID = names.withLock({ $0.rooms[notice.conversation.rawValue] }) {
            for member in try await client.members(of: roomID, membership: "join") {
                guard let user = member.stateKey, Self.number(user) == notice.user.rawValue else { continue }
                names.withLock { $0.users[notice.user.rawValue] = user }
                return user
            }
        }
        throw IMClientError(.api(.notFound), "the addressee of a notice (\(notice.user)) is not a member of its room")
    }

    /// Edits the bot's message `id` in place (`m.replace`); `transactionID` is the edit's own.
    func edit(_ id: MessageID, in address: ConversationAddress, text: String, _ transactionID: String)
        async throws(IMClientError)
    {
        let roomID = try await roomID(of: address)
        guard let eventID = try await ownEvent(id, in: roomID) else {
            throw IMClientError(.api(.notFound), "the living message \(id) is not among the bot's latest "
                                + "\(Self.lookBack) events of \(roomID)")
        }
        try await client.edit(eventID, in: roomID, to: text, transactionID: transactionID)
    }

    /// A member's role in the room of `address`, from its power levels: `owner` for a
    /// room version 12 creator or level 100 and more, `admin` from level 50 (what kicks
    /// and bans need by default), else `member`; nil when they cannot be read.
    func role(of user: String, in address: ConversationAddress?, now: Double) async -> MemberRole? {
        guard let address, let roomID = knownRoomID(of: address) else { return nil }
        var power = powers.withLock { cached -> RoomPower? in
            guard let entry = cached[roomID], now - entry.at < Self.powerTTL else { return nil }
            return entry.power
        }
        if power == nil {
            power = try? await client.power(in: roomID)
            if let power { powers.withLock { $0[roomID] = (power, now) } }
        }
        guard let power else { return nil }
        let level = power.level(of: user)
        return level >= 100 ? .owner : level >= 50 ? .admin : .member
    }

    /// Forgets a room's power levels (they changed).
    func powerChanged(in roomID: String) {
        _ = powers.withLock { $0.removeValue(forKey: roomID) }
    }

    /// How many of its latest events in a room the bot looks through for a message it
    /// posted before a restart (the journal keeps its number, not its Matrix id).
    static let lookBack = 200

    /// The Matrix id of the bot's own message `id`: remembered, or found among its latest
    /// events in the room (after a restart).
    private func ownEvent(_ id: MessageID, in roomID: String) async throws(IMClientError) -> String? {
        if let known = names.withLock({ $0.messages[id.rawValue] }) { return known }
        let me = try client.currentUser()
        for event in try await client.latestEvents(in: roomID, limit: Self.lookBack, senders: [me]) {
            if let eventID = event.eventID, Self.number(eventID) == id.rawValue {
                _ = remember(eventID)
                return eventID
            }
        }
        return nil
    }

    /// Carries a moderation act out on the homeserver: `delete` as a redaction (of the
    /// message and its edits), `mute` as a power level below what messages need, `kick`,
    /// `ban`, `unban`; a join request (a knock) approved by inviting the knocker, denied
    /// by a kick of the knock; `join_policy` as the room's join rule, `slow_mode` kept in
    /// the journal and enforced by the runner (Matrix has none). Redacting a message
    /// already gone, or unmuting someone not muted, counts as done.
    func moderate(_ act: ModerationAct) async throws(IMClientError) {
        switch act {
        case .delete(let id, let address):
            let roomID = try await roomID(of: address)
            guard let eventID = names.withLock({ $0.messages[id.rawValue] }) else {
                throw IMClientError(.api(.notFound), "message \(id) is not known here any more")
            }
            let edits = names.withLock { $0.edits[id.rawValue] ?? [] }
            for (index, target) in ([eventID] + edits).enumerated() {
                do {
                    try await client.redact(target, in: roomID, reason: "moderation",
                                            transactionID: "redact-\(id.rawValue)" + (index == 0 ? "" : "-\(Self.number(target))"))
                } catch where error.apiCode == .notFound {
                    // Redacted already.
                }
            }
        case .member(let action, let group, let user, _, let reason):
            let roomID = try await roomID(of: .group(group))
            let member = try Self.user(user)
            switch action {
            case .mute: _ = try await client.mute(member, in: roomID)
            case .unmute:
                // Nothing to lift when they have no entry (a newcomer let in at once).
                if try await client.power(in: roomID).levels.users?[member.rawValue] != nil {
                    try await client.unmute(member, in: roomID)
                }
            case .kick: try await client.kick(member, from: roomID, reason: reason)
            case .ban: try await client.ban(member, from: roomID, reason: reason)
            case .unban: try await client.unban(member, from: roomID, reason: reason)
            default:
                throw IMClientError(.invalidArgument, "\(action.rawValue) has no Matrix counterpart")
            }
            powerChanged(in: roomID)
        case .joinRequest(let approve, let group, let user):
            let roomID = try await roomID(of: .group(group))
            try await answerKnock(of: Self.user(user), in: roomID, approve: approve)
        case .allJoinRequests(let approve, let group):
            let roomID = try await roomID(of: .group(group))
            for knock in try await client.members(of: roomID, membership: "knock") {
                guard let user = knock.stateKey.flatMap(MatrixUserID.init) else { continue }
                try await answerKnock(of: user, in: roomID, approve: approve)
            }
        case .settings(let group, let settings):
            let roomID = try await roomID(of: .group(group))
            if let join = settings.join {
                let rule = switch join {
                case .open: "public"
                case .approval: "knock"
                case .invite: "invite"
                }
                try await client.setState(of: roomID, type: "m.room.join_rules", content: .object(["join_rule": .string(rule)]))
            }
            if let slow = settings.slowMode {
                journal.record(.matrix(.slowMode(group.lowercased(), seconds: Int(slow.seconds))))
            }
        }
    }

    /// Lets a knock in (an invitation) or turns it away (a kick of the knock); a knock
    /// withdrawn or answered meanwhile counts as done.
    private func answerKnock(of user: MatrixUserID, in roomID: String, approve: Bool) async throws(IMClientError) {
        do {
            if approve {
                try await client.invite(user, to: roomID)
            } else {
                try await client.kick(user, from: roomID, reason: "join request denied")
            }
        } catch where error.apiCode == .notFound
                    || (error.apiCode == .forbidden && error.message.contains("already in the room")) {
            // Answered already (let in meanwhile), or gone.
        }
    }

    private static func user(_ text: String) throws(IMClientError) -> MatrixUserID {
        guard let member = MatrixUserID(text) else {
            throw IMClientError(.invalidArgument, "'\(text)' is not a Matrix user id")
        }
        return member
    }

    /// A room's slow mode in seconds (nil: off), as the journal keeps it.
    func slowMode(ofRoom roomID: String) -> Int? {
        guard let name = name(ofRoom: roomID) else { return nil }
        return journal.state.matrix.slowMode[name]
    }

    /// When the members of a group's room joined (by user id, lower-cased), from the
    /// room's membership state: for `from: {joined_within: …}` about members who joined
    /// before the bot saw it.
    func joinTimes(of group: String) async throws(IMClientError) -> [String: Timestamp] {
        let roomID = try await roomID(of: .group(group))
        var times: [String: Timestamp] = [:]
        for event in try await client.members(of: roomID, membership: "join") {
            guard let user = event.stateKey, let at = event.originServerTS else { continue }
            times[user.lowercased()] = Timestamp(milliseconds: at)
        }
        return times
    }

    /// Applies a profile change: the nickname as the display name, an `mxc://` avatar URL
    /// as the avatar. Matrix profiles have no signature or attributes: that is logged
    /// (once per start), not an error.
    func updateProfile(_ update: ProfileUpdate) async throws(IMClientError) {
        if let nickname = update.nickname { try await client.setDisplayName(nickname) }
        var unplaced: [String] = []
        if let avatar = update.avatarURL {
            if avatar.hasPrefix("mxc://") { try await client.setAvatarURL(avatar) } else { unplaced.append("avatar_url") }
        }
        if update.signature != nil { unplaced.append("signature") }
        if let attrs = update.attrs, !attrs.isEmpty { unplaced.append("attrs") }
        guard !unplaced.isEmpty, !toldUnplaced.withLock({ told in defer { told = true }; return told }) else { return }
        logger.notice("\(account.user): a Matrix profile has a display name and an avatar (an mxc:// URL) only: "
                      + "update_profile's \(unplaced.joined(separator: ", ")) not set (said once)")
    }
}
