import Foundation
import HTTPServer
import IMProtocol
import Testing

@testable import IMServer

/// The hand-written JSON of sent messages, event batches, history pages, conversation
/// lists, profiles, member lists, read markers and error envelopes must be the very
/// bytes the wire encoder would produce, or clients comparing answers (and these tests)
/// would see a difference depending on the endpoint.
@Suite struct WireWriterTests {
    static let awkwardTexts: [String] = [
        "", "hello", "a/b \\ \"quoted\"", "line\nbreak\ttab\rreturn\u{8}back\u{C}feed",
        String((0..<0x20).map { Character(Unicode.Scalar(UInt8($0))) }) + "\u{7F}",
        "émoji 🎉 👩‍👩‍👧 e\u{301} \u{2028}\u{2029} \u{FEFF} 漢字", "{\"json\":[1,2]}", "</script>",
    ]

    static let times: [Timestamp] = [
        Timestamp(milliseconds: 0), Timestamp(milliseconds: 1_764_433_010_123), Timestamp(milliseconds: -1),
        Timestamp(milliseconds: -86_400_001), Timestamp(milliseconds: 253_402_300_799_999),
        Timestamp(milliseconds: 1_700_000_000_007),
    ]

    static func messages() -> [Message] {
        var all: [Message] = []
        for (index, text) in awkwardTexts.enumerated() {
            let time = times[index % times.count]
            all.append(
                Message(
                    id: MessageID(rawValue: Int64(index + 1)), conversationID: ConversationID(rawValue: 9_007_199_254_740_993),
                    seq: Int64(index) * 1000, type: index % 2 == 0 ? .chat : .system, sender: "user-\(text.prefix(3))",
                    senderID: UserID(rawValue: Int64.max), text: text,
                    clientMessageID: index % 3 == 0 ? nil : "client/\(text.prefix(4))",
                    replyTo: index % 4 == 1 ? MessageID(rawValue: 42) : nil, createdAt: time,
                    deletedAt: index % 5 == 2 ? times[(index + 1) % times.count] : nil,
                    editedAt: index % 3 == 1 ? times[(index + 2) % times.count] : nil))
        }
        return all
    }

    static func events() -> [Event] {
        let addresses: [(ConversationKind, ConversationAddress)] = [
            (.direct, .user("bob")), (.group, .group("ops/\"night\"")), (.room, .room("lobby")),
            (.group, .id(ConversationID(rawValue: 7))),
        ]
        let user = User(
            id: UserID(rawValue: 3), username: "carol", nickname: "Carol \"C\"", avatarURL: "/v1/media/x",
            signature: "hi", attrs: ["b": "2", "a": "1"], isBot: true, createdAt: times[1])
        let info = ConversationInfo(
            id: ConversationID(rawValue: 8), kind: .group, name: "ops", title: "Ops", memberCount: 3, createdBy: nil,
            createdAt: times[1])
        var all: [Event] = []
        for (index, message) in messages().enumerated() {
            let (kind, address) = addresses[index % addresses.count]
            all.append(
                Event(
                    position: Int64(index) + 1, type: .message, at: times[index % times.count],
                    conversation: ConversationRef(id: message.conversationID, kind: kind, address: address),
                    message: message))
        }
        all.append(Event(position: 100, type: .read, at: times[1], seq: 12))
        all.append(Event(position: 101, type: .memberMuted, at: times[2], by: "admin", until: times[1]))
        all.append(Event(position: 102, type: .kickedOut, at: times[0], reason: "logged in elsewhere"))
        all.append(Event(position: 103, type: .other("future_kind"), at: times[0]))
        all.append(Event(position: 104, type: .profileUpdated, at: times[1], user: user))
        all.append(Event(position: 105, type: .conversationUpdated, at: times[1], by: "dave", info: info))
        all.append(Event(position: 106, type: .messageDeleted, at: times[1], by: "eve"))
        all.append(Event(position: 107, type: .roleChanged, at: times[1], user: user, by: "eve", role: .admin))
        all.append(Event(position: 108, type: .memberJoined, at: times[1], user: user, via: .approval))
        all.append(Event(position: 109, type: .memberBanned, at: times[1], by: "eve", reason: "spam", until: times[2]))
        // Every optional key at once, so that the written order of each is checked.
        all.append(
            Event(
                position: 110, type: .memberMuted, at: times[3], conversation: ConversationRef(
                    id: ConversationID(rawValue: 8), kind: .group, address: .group("ops")),
                user: user, by: "eve", seq: 3, reason: "flood", until: times[4], role: .member, via: .open))
        return all
    }

    /// `written` is the very bytes the wire encoder makes of `value`, and decodes back to it.
    static func expectWritten<Value: Codable & Equatable>(
        _ written: Data, as value: Value, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let expected = try WireJSON.encoder().encode(value)
        #expect(
            String(decoding: written, as: UTF8.self) == String(decoding: expected, as: UTF8.self),
            sourceLocation: sourceLocation)
        #expect(try JSONDecoder().decode(Value.self, from: written) == value, sourceLocation: sourceLocation)
    }

    @Test func messagesAreEncodedExactlyAsTheWireEncoderDoes() throws {
        let encoder = WireJSON.encoder()
        for message in Self.messages() {
            let expected = try encoder.encode(message)
            let actual = WireWriter.encode(message)
            #expect(String(decoding: actual, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
            #expect(actual == expected)
        }
    }

    /// Every code, with each optional field present and absent, and texts that need escaping.
    static func errors() -> [APIError] {
        var all: [APIError] = []
        for (index, code) in ErrorCode.allCases.enumerated() {
            let text = awkwardTexts[index % awkwardTexts.count]
            all.append(APIError(code, text))
            all.append(
                APIError(
                    code, "message \(index)", retryAfter: index % 2 == 0 ? index * 7 : nil,
                    field: index % 3 == 0 ? nil : "field/\(text.prefix(5))", reason: index % 2 == 1 ? text : nil,
                    until: index % 4 == 0 ? nil : times[index % times.count]))
        }
        all.append(APIError(.rateLimited, "slow down", retryAfter: 0, field: "", reason: "", until: times[3]))
        return all
    }

    @Test func errorEnvelopesAreEncodedExactlyAsTheWireEncoderDoes() throws {
        for error in Self.errors() {
            try Self.expectWritten(WireWriter.encode(ErrorEnvelope(error: error)), as: ErrorEnvelope(error: error))
        }
    }

    @Test func conversationListsAreEncodedExactlyAsTheWireEncoderDoes() throws {
        let addresses: [(ConversationKind, ConversationAddress)] = [
            (.direct, .user("bob")), (.group, .group("ops/\"night\"")), (.room, .room("lobby")),
            (.group, .id(ConversationID(rawValue: 7))),
        ]
        var conversations: [Conversation] = []
        for (index, message) in Self.messages().enumerated() {
            let (kind, address) = addresses[index % addresses.count]
            let text = Self.awkwardTexts[(index + 1) % Self.awkwardTexts.count]
            conversations.append(
                Conversation(
                    id: ConversationID(rawValue: Int64(index + 1) * 1_000_003), kind: kind, address: address,
                    displayName: text, avatarURL: index % 2 == 0 ? "" : "/v1/media/\(text.prefix(2))",
                    lastMessage: index % 3 == 0 ? nil : message, unread: index * 17 - 5,
                    lastReadSeq: index % 4 == 0 ? Int64.max : Int64(index), updatedAt: Self.times[index % Self.times.count]))
        }
        for list in [ConversationList(conversations: []), ConversationList(conversations: conversations)] {
            try Self.expectWritten(WireWriter.encode(list), as: list)
        }
    }

    /// Profiles with attributes whose keys sort differently by case, digits, punctuation
    /// and non-ASCII letters, and lists with and without missing names.
    static func users() -> [User] {
        let attrs: [[String: String]] = [
            [:], ["b": "1", "B": "2", "a10": "3", "a9": "4", "é": "5", "e": "6", "Z": "7", "_x": "8", "a-b": "9", "ab": "10"],
            ["team": "ops/\"night\"", "emoji 🎉": "👩‍👩‍👧", "": "empty key", "漢字": "line\nbreak"],
        ]
        return awkwardTexts.enumerated().map { index, text in
            User(
                id: UserID(rawValue: Int64(index) * 7_919 + 1), username: "user\(index)", nickname: text,
                avatarURL: index % 2 == 0 ? "" : "/v1/media/\(index)", signature: awkwardTexts[(index + 3) % awkwardTexts.count],
                attrs: attrs[index % attrs.count], isBot: index % 3 == 0, createdAt: times[index % times.count])
        }
    }

    @Test func profilesAndTheirListsAreEncodedExactlyAsTheWireEncoderDoes() throws {
        for user in Self.users() { try Self.expectWritten(WireWriter.encode(user), as: user) }
        let lists = [
            UserList(users: []), UserList(users: Self.users()), UserList(users: [], missing: []),
            UserList(users: Array(Self.users().prefix(2)), missing: ["nobody", "ghost \"quoted\"", "é"]),
        ]
        for list in lists { try Self.expectWritten(WireWriter.encode(list), as: list) }
    }

    @Test func memberListsAreEncodedExactlyAsTheWireEncoderDoes() throws {
        let roles: [MemberRole] = [.member, .admin, .owner]
        let members = Self.users().enumerated().map { index, user in
            Member(
                user: user, role: roles[index % roles.count], joinedAt: Self.times[index % Self.times.count],
                muted: index % 3 == 0 ? nil : index % 2 == 0, mutedUntil: index % 4 == 1 ? Self.times[1] : nil,
                restricted: index % 5 == 0 ? nil : index % 2 == 1)
        }
        for list in [MemberList(members: []), MemberList(members: members)] {
            try Self.expectWritten(WireWriter.encode(list), as: list)
        }
    }

    @Test(arguments: [Int64(0), 1, 42, 1_000_000, Int64.max])
    func readMarkersAreEncodedExactlyAsTheWireEncoderDoes(seq: Int64) throws {
        #expect(WireWriter.encode(ReadMarker(seq: seq)) == (try WireJSON.encoder().encode(ReadMarker(seq: seq))))
    }

    @Test func eventBatchesAreEncodedExactlyAsTheWireEncoderDoes() throws {
        let encoder = WireJSON.encoder()
        let events = Self.events()
        for batch in [
            EventBatch(events: [], cursor: "v1.abc.1.0"), EventBatch(events: events, cursor: "v1.abc.1.2x"),
            EventBatch(events: Array(events.suffix(3)), cursor: "c\"/"),
        ] {
            let expected = try encoder.encode(batch)
            let actual = try WireWriter.encode(batch, fallback: encoder)
            #expect(String(decoding: actual, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
            #expect(actual == expected)
        }
    }

    @Test func historyPagesAreEncodedExactlyAsTheWireEncoderDoes() throws {
        let encoder = WireJSON.encoder()
        let messages = Self.messages()
        for page in [
            MessagePage(messages: [], nextBefore: nil), MessagePage(messages: messages, nextBefore: 7),
            MessagePage(messages: Array(messages.prefix(1)), nextBefore: nil),
            MessagePage(messages: Array(messages.suffix(2)), nextBefore: Int64.max),
        ] {
            let expected = try encoder.encode(page)
            let actual = WireWriter.encode(page)
            #expect(String(decoding: actual, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
            #expect(actual == expected)
            #expect(try WireJSON.decoder().decode(MessagePage.self, from: Response.messages(page).body) == page)
        }
    }

    @Test func jsonResponsesOfMessagesAndBatchesDecodeToTheSameValues() throws {
        let encoder = WireJSON.encoder()
        let message = try #require(Self.messages().last)
        let response = try Response.json(message, status: 201, encoder: encoder)
        #expect(response.status == 201)
        #expect(try WireJSON.decoder().decode(Message.self, from: response.body) == message)
        let batch = EventBatch(events: Self.events(), cursor: "v1.e.1.1")
        let answer = try Response.json(batch, encoder: encoder)
        #expect(try WireJSON.decoder().decode(EventBatch.self, from: answer.body) == batch)
    }
}

/// The bearer token is read from the header byte by byte; it must accept and refuse what
/// Foundation's lowercasing and trimming did.
@Suite struct BearerTokenTests {
    @Test(arguments: [
        ("Bearer abc", "abc"), ("bearer abc", "abc"), ("BEARER abc", "abc"), ("Bearer   abc \t ", "abc"),
        ("Bearer \u{A0}abc\u{3000}", "abc"), ("Bearer a b", "a b"), ("Bearer   ", ""),
    ])
    func aBearerHeaderYieldsItsTrimmedToken(header: String, token: String) {
        #expect(Authenticator.bearerToken(header).map(String.init) == token)
    }

    @Test(arguments: ["", "Bearer", "Bearer ", "Basic abc", "Bearer\u{A0}abc", "Bearer\tabc", "Bearerabc", "Bear"])
    func otherHeadersHaveNoBearerToken(header: String) {
        #expect(Authenticator.bearerToken(header) == nil)
    }
}
