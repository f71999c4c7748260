import IMChat
import IMClient
import IMProtocol

/// Values for screen tests: fixed ids and times, so golden screens never change by themselves.
enum Fixture {
    /// 2026-11-29 14:00:00 UTC.
    static let start = Timestamp(milliseconds: 1_795_960_800_000)

    static func time(_ minutes: Int) -> Timestamp { Timestamp(milliseconds: start.milliseconds + Int64(minutes) * 60_000) }

    static func user(_ name: String, id: Int64, nickname: String? = nil, signature: String = "") -> User {
        User(id: UserID(rawValue: id), username: name, nickname: nickname ?? name, signature: signature, createdAt: start)
    }

    static let alice = user("alice", id: 1, nickname: "Alice Liddell", signature: "curiouser and curiouser")
    static let bob = user("bob", id: 2, nickname: "Bob")

    static let opsID = ConversationID(rawValue: 10)
    static let bobID = ConversationID(rawValue: 11)

    static func message(
        _ seq: Int64, _ text: String, from sender: String = "bob", in conversation: ConversationID = opsID,
        type: MessageType = .chat, replyTo: MessageID? = nil, minute: Int? = nil, clientID: String? = nil
    ) -> Message {
        Message(
            id: MessageID(rawValue: conversation.rawValue * 10_000 + seq), conversationID: conversation, seq: seq, type: type,
            sender: sender, senderID: UserID(rawValue: sender == "alice" ? 1 : 2), text: text, clientMessageID: clientID,
            replyTo: replyTo, createdAt: time(minute ?? Int(seq)))
    }

    static func conversation(
        _ id: ConversationID, _ address: ConversationAddress, name: String, last: Message?, unread: Int, read: Int64
    ) -> Conversation {
        let kind: ConversationKind = switch address {
        case .group: .group
        case .room: .room
        default: .direct
        }
        return Conversation(
            id: id, kind: kind, address: address, displayName: name, avatarURL: "", lastMessage: last, unread: unread,
            lastReadSeq: read, updatedAt: last?.createdAt ?? start)
    }

    static func info(_ name: String, kind: ConversationKind = .group, id: ConversationID = opsID, members: Int = 2) -> ConversationInfo {
        ConversationInfo(
            id: id, kind: kind, name: name, title: name == "ops" ? "Operations" : name, description: "The on-call team",
            memberCount: members, createdBy: "alice", createdAt: start)
    }

    static func event(_ position: Int64, _ type: EventType, _ conversation: ConversationID = opsID,
                      address: ConversationAddress = .group("ops"), message: Message? = nil, user: User? = nil,
                      seq: Int64? = nil, info: ConversationInfo? = nil, by: String? = nil, reason: String? = nil,
                      until: Timestamp? = nil, role: MemberRole? = nil, via: JoinPolicy? = nil) -> ChatInput {
        let kind: ConversationKind = if case .group = address { .group } else if case .room = address { .room } else { .direct }
        return .live(.event(Event(
            position: position, type: type, at: start, conversation: ConversationRef(id: conversation, kind: kind, address: address),
            message: message, user: user, by: by, info: info, seq: seq, reason: reason, until: until, role: role, via: via)))
    }

    /// A member of ops.
    static func member(_ user: User, _ role: MemberRole = .member, muted: Bool = false, until: Timestamp? = nil,
                       restricted: Bool = false) -> Member {
        Member(user: user, role: role, joinedAt: start, muted: muted ? true : nil, mutedUntil: until,
               restricted: restricted ? true : nil)
    }

    static let carol = user("carol", id: 3, nickname: "Carol")

    /// A model on the Login screen at 80×24 in UTC.
    static func model(columns: Int = 80, rows: Int = 24, widths: WidthTable = .standard) -> ChatModel {
        ChatModel(server: "http://127.0.0.1:8080", columns: columns, rows: rows, widths: widths,
                  time: TimeFormat(utcOffset: 0), idPrefix: "test")
    }

    /// A model logged in as alice with the live stream ready.
    static func loggedIn(sessions: [Conversation] = []) -> ChatModel {
        var model = model()
        _ = model.handle(.result(.loggedIn(alice)))
        _ = model.handle(.liveReady)
        _ = model.handle(.result(.sessions(sessions)))
        _ = model.handle(.result(.contacts(ContactLists(
            users: [bob], groups: [info("ops")], rooms: [info("lobby", kind: .room, id: ConversationID(rawValue: 12), members: 5)]))))
        return model
    }

    /// `count` messages of bob in ops, seq 1...count, as the server pages them (newest first).
    static func page(_ range: ClosedRange<Int64>, total: Int64, from sender: String = "bob") -> MessagePage {
        let messages = range.reversed().map { message($0, "message \($0)", from: sender) }
        return MessagePage(messages: messages, nextBefore: range.lowerBound > 1 ? range.lowerBound : nil)
    }
}

extension ChatModel {
    /// Types `text` one key at a time; returns the effects of the last key.
    @discardableResult
    mutating func type(_ text: String) -> [ChatEffect] {
        var effects: [ChatEffect] = []
        for character in text { effects = handle(.key(.character(character))) }
        return effects
    }

    @discardableResult
    mutating func press(_ key: Key) -> [ChatEffect] { handle(.key(key)) }

    /// Presses keys one after another; returns the effects of the last.
    @discardableResult
    mutating func press(_ first: Key, _ then: Key...) -> [ChatEffect] {
        then.reduce(press(first)) { _, key in press(key) }
    }

    /// The screen as text.
    var screenText: String { ChatView.render(self).text }
}
