import IMClient
import IMProtocol
import MatrixClient
import Synchronization

/// A Matrix bot's way to its homeserver: the login, the rooms its file names, and the
/// translation between Matrix's string ids and the numeric ids of the rule engine's
/// events (conversations, messages, users), so that the engine, journal and outbox
/// work on Matrix events as on Switchboard's.
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
    private let names = Mutex(Names())
    /// Each room's power, as read last, with when (the runner's seconds).
    private let powers = Mutex<[String: (power: RoomPower, at: Double)]>([:])

    /// How long a room's power levels are used before they are read again.
    static let powerTTL: Double = 10

    /// The most messages whose Matrix ids are kept for replies and redactions.
    static let rememberedMessages = 10_000

    private struct Names {
        var rooms: [Int64: String] = [:]
        /// Room ids of the names the file uses (`group:support` → `!abc:server`).
        var named: [String: String] = [:]
        var nameOfRoom: [String: String] = [:]
        var messages: [Int64: String] = [:]
        var messageOrder: [Int64] = []
        /// Display names by user id (a bounded table, as messages).
        var displayNames: [String: String] = [:]
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

    init(account: MatrixAccount, secret: MatrixSecret, device: String, transport: any HTTPTransport,
         sleep: @escaping SleepFunction) {
        self.account = account
        self.secret = secret
        self.device = device
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
        return BotContext.Identity(username: session.userID.rawValue, id: UserID(rawValue: Self.number(session.userID.rawValue)),
                                   nickname: session.userID.localpart)
    }

    /// The rule engine's event for a Matrix event, or nil for one it has no event for
    /// (the bot's own, state changes other than membership, edits, notices of other bots).
    func event(_ item: MatrixRoomEvent, position: Int64, me: String) -> Event? {
        let event = item.event
        if event.type == "m.room.power_levels" { powerChanged(in: item.roomID) }
        guard event.sender != me, let eventID = event.eventID else { return nil }
        let at = Timestamp(milliseconds: event.originServerTS ?? 0)
        let conversation = self.conversation(item.roomID)
        let senderNumber = Self.number(event.sender)
        let user = User(id: UserID(rawValue: senderNumber), username: event.sender,
                        nickname: nickname(of: event.sender), createdAt: at)
        switch event.type {
        case "m.room.message":
            // Edits are not new messages; notices are what bots send, never answered.
            guard event.replaces == nil, event.messageType == "m.text", let body = event.body else { return nil }
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
            switch event.membership {
            case "join"?: return Event(position: position, type: .memberJoined, at: at, conversation: conversation, user: joined)
            case "leave"?: return Event(position: position, type: .memberLeft, at: at, conversation: conversation, user: joined)
            default: return nil
            }
        default:
            return nil
        }
    }

    /// The conversation of a room: the file's name for it (`group:support`) when it has
    /// one, else its number.
    private func conversation(_ roomID: String) -> ConversationRef {
        let number = Self.number(roomID)
        let name = names.withLock { names -> String? in
            names.rooms[number] = roomID
            return names.nameOfRoom[roomID]
        }
        let id = ConversationID(rawValue: number)
        if let name { return ConversationRef(id: id, kind: .group, address: .group(name)) }
        return ConversationRef(id: id, kind: .group, address: .id(id))
    }

    private func remember(_ eventID: String) -> Int64 {
        let number = Self.number(eventID)
        names.withLock { names in
            guard names.messages.updateValue(eventID, forKey: number) == nil else { return }
            names.messageOrder.append(number)
            while names.messageOrder.count > Self.rememberedMessages {
                names.messages[names.messageOrder.removeFirst()] = nil
            }
        }
        return number
    }

    /// The room of a conversation address; `NOT_FOUND` for one the bot does not know.
    func roomID(of address: ConversationAddress) throws(IMClientError) -> String {
        let found = names.withLock { names -> String? in
            switch address {
            case .group(let name), .room(let name): names.named[name.lowercased()]
            case .id(let id): names.rooms[id.rawValue]
            default: nil
            }
        }
        guard let found else {
            throw IMClientError(.api(.notFound), "\(address) has no Matrix room: name it under platform.matrix.rooms")
        }
        return found
    }

    /// Sends a reply or message: `m.text`, as a reply when it quotes, with the journal's
    /// client message id as the transaction id (so a repeat after a crash is one event).
    func send(_ message: PendingMessage, to address: ConversationAddress) async throws(IMClientError) {
        _ = try await post(message, to: address)
    }

    /// Sends a message and returns its number (for a living message's later edits).
    func post(_ message: PendingMessage, to address: ConversationAddress) async throws(IMClientError) -> MessageID {
        guard message.notice == nil else {
            throw IMClientError(.invalidArgument, "notices (seen by one member only) do not exist on Matrix")
        }
        let roomID = try roomID(of: address)
        let replyTo = message.replyTo.flatMap { id in names.withLock { $0.messages[id.rawValue] } }
        let eventID = try await client.sendText(message.text, to: roomID, replyTo: replyTo,
                                                transactionID: message.clientMessageID)
        return MessageID(rawValue: remember(eventID))
    }

    /// Edits the bot's message `id` in place (`m.replace`); `transactionID` is the edit's own.
    func edit(_ id: MessageID, in address: ConversationAddress, text: String, _ transactionID: String)
        async throws(IMClientError)
    {
        let roomID = try roomID(of: address)
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
        guard let address, let roomID = try? roomID(of: address) else { return nil }
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

    /// Carries a moderation act out on the homeserver: `delete` as a redaction, `mute` as
    /// a power level below what messages need, `kick`, `ban`, `unban`. Redacting a
    /// message already gone, or unmuting someone not muted, counts as done.
    func moderate(_ act: ModerationAct) async throws(IMClientError) {
        switch act {
        case .delete(let id, let address):
            let roomID = try roomID(of: address)
            guard let eventID = names.withLock({ $0.messages[id.rawValue] }) else {
                throw IMClientError(.api(.notFound), "message \(id) is not known here any more")
            }
            do {
                try await client.redact(eventID, in: roomID, reason: "moderation", transactionID: "redact-\(id.rawValue)")
            } catch where error.apiCode == .notFound {
                // Redacted already.
            }
        case .member(let action, let group, let user, _, let reason):
            let roomID = try roomID(of: .group(group))
            guard let member = MatrixUserID(user) else {
                throw IMClientError(.invalidArgument, "'\(user)' is not a Matrix user id")
            }
            switch action {
            case .mute: _ = try await client.mute(member, in: roomID)
            case .unmute: try await client.unmute(member, in: roomID)
            case .kick: try await client.kick(member, from: roomID, reason: reason)
            case .ban: try await client.ban(member, from: roomID, reason: reason)
            case .unban: try await client.unban(member, from: roomID, reason: reason)
            default:
                throw IMClientError(.invalidArgument, "\(action.rawValue) is not done on Matrix yet")
            }
        case .joinRequest, .allJoinRequests, .settings:
            throw IMClientError(.invalidArgument, "\(act) is not done on Matrix yet")
        }
    }
}
