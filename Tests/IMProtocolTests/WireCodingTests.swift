import Foundation
import IMProtocol
import Testing

/// 2026-11-29T16:16:50.123Z.
private let at = Timestamp(milliseconds: 1_795_969_010_123)
private let atText = "2026-11-29T16:16:50.123Z"

private let bob = User(
    id: UserID(rawValue: 2), username: "bob", nickname: "Bob", avatarURL: "/v1/media/abc",
    signature: "hi there", attrs: ["team": "ops", "city": "Oslo"], isBot: true, createdAt: at)
private let bobJSON = #"{"attrs":{"city":"Oslo","team":"ops"},"avatar_url":"/v1/media/abc","created_at":"\#(atText)","id":"2","is_bot":true,"nickname":"Bob","signature":"hi there","username":"bob"}"#

private let message = Message(
    id: MessageID(rawValue: 99), conversationID: ConversationID(rawValue: 3), seq: 4, sender: "bob",
    senderID: UserID(rawValue: 2), text: "see https://example.com/a", clientMessageID: "c-1",
    replyTo: MessageID(rawValue: 98), createdAt: at)
private let messageJSON = #"{"client_msg_id":"c-1","conversation_id":"3","created_at":"\#(atText)","id":"99","reply_to":"98","sender":"bob","sender_id":"2","seq":4,"text":"see https://example.com/a","type":"chat"}"#

@Suite struct WireJSONTests {
    @Test func keysAreSnakeCaseAndSorted() throws {
        #expect(try JSON.encode(bob) == bobJSON)
        #expect(try JSON.encode(message) == messageJSON)
    }

    @Test func slashesAreNotEscaped() throws {
        let encoded = try JSON.encode(MediaInfo(id: "m1", url: "/v1/media/m1", contentType: "image/png", size: 3))
        #expect(encoded == #"{"content_type":"image/png","id":"m1","size":3,"url":"/v1/media/m1"}"#)
    }

    @Test func encodingIsStable() throws {
        let first = try JSON.encode(bob)
        for _ in 0..<5 { #expect(try JSON.encode(bob) == first) }
    }

    @Test func decodesWhatItEncodes() throws {
        #expect(try JSON.decode(User.self, bobJSON) == bob)
        #expect(try JSON.decode(Message.self, messageJSON) == message)
    }

    @Test func absentOptionalsAreLeftOut() throws {
        let deleted = Message(
            id: MessageID(rawValue: 5), conversationID: ConversationID(rawValue: 1), seq: 1, type: .system,
            sender: "ann", senderID: UserID(rawValue: 1), text: "", createdAt: at, deletedAt: at)
        #expect(try JSON.encode(deleted)
            == #"{"conversation_id":"1","created_at":"\#(atText)","deleted_at":"\#(atText)","id":"5","sender":"ann","sender_id":"1","seq":1,"text":"","type":"system"}"#)
        #expect(try JSON.encode(MessagePage(messages: [], nextBefore: nil)) == #"{"messages":[]}"#)
        #expect(try JSON.encode(MessagePage(messages: [], nextBefore: 40)) == #"{"messages":[],"next_before":40}"#)
        #expect(try JSON.encode(UserList(users: [])) == #"{"users":[]}"#)
    }

    @Test func decodingAcceptsNumericIdentifiersAndIgnoresUnknownKeys() throws {
        let text = #"{"id":99,"conversation_id":3,"seq":4,"type":"chat","sender":"bob","sender_id":2,"text":"see https://example.com/a","client_msg_id":"c-1","reply_to":98,"created_at":"2026-11-29T17:16:50.123+01:00","edited":true}"#
        #expect(try JSON.decode(Message.self, text) == message)
    }

    @Test func missingRequiredFieldsFail() {
        #expect(throws: DecodingError.self) {
            try JSON.decode(Message.self, #"{"id":"1","conversation_id":"1","seq":1,"type":"chat","sender_id":"1","text":"x","created_at":"\#(atText)"}"#)
        }
    }

    @Test func requestKeys() throws {
        #expect(try JSON.encode(SendMessageRequest(text: "hi", clientMessageID: "c", replyTo: MessageID(rawValue: 7)))
            == #"{"client_msg_id":"c","reply_to":"7","text":"hi"}"#)
        #expect(try JSON.encode(PasswordChange(oldPassword: "a", newPassword: "b"))
            == #"{"new_password":"b","old_password":"a"}"#)
        #expect(try JSON.encode(ProfileUpdate(avatarURL: "")) == #"{"avatar_url":""}"#)
        #expect(try JSON.encode(ConversationInfoUpdate(logoURL: "https://x/y.png"))
            == #"{"logo_url":"https://x/y.png"}"#)
        #expect(try JSON.encode(CreateConversationRequest(name: "ops", logoURL: "/v1/media/1"))
            == #"{"logo_url":"/v1/media/1","name":"ops"}"#)
        #expect(try JSON.encode(RegisterRequest(username: "bob", password: "secret12", bot: true, device: "cli"))
            == #"{"bot":true,"device":"cli","password":"secret12","username":"bob"}"#)
    }

    @Test func authResponseOmitsExpiryForBots() throws {
        let user = User(id: UserID(rawValue: 1), username: "b", nickname: "B", createdAt: Timestamp(milliseconds: 0))
        let userJSON = #"{"attrs":{},"avatar_url":"","created_at":"1970-01-01T00:00:00.000Z","id":"1","is_bot":false,"nickname":"B","signature":"","username":"b"}"#
        #expect(try JSON.encode(AuthResponse(user: user, token: "t", expiresAt: nil)) == #"{"token":"t","user":\#(userJSON)}"#)
        #expect(try JSON.encode(AuthResponse(user: user, token: "t", expiresAt: at))
            == #"{"expires_at":"\#(atText)","token":"t","user":\#(userJSON)}"#)
    }

    @Test func conversationAndInfo() throws {
        let conversation = Conversation(
            id: ConversationID(rawValue: 3), kind: .direct, address: .user("bob"), displayName: "Bob",
            avatarURL: "", lastMessage: nil, unread: 2, lastReadSeq: 1, updatedAt: at)
        let conversationJSON = #"{"address":"user:bob","avatar_url":"","display_name":"Bob","id":"3","kind":"direct","last_read_seq":1,"unread":2,"updated_at":"\#(atText)"}"#
        #expect(try JSON.encode(conversation) == conversationJSON)
        #expect(try JSON.decode(Conversation.self, conversationJSON) == conversation)

        let info = ConversationInfo(
            id: ConversationID(rawValue: 8), kind: .group, name: "ops", title: "Ops", memberCount: 4,
            createdBy: "ann", createdAt: at)
        let infoJSON = #"{"created_at":"\#(atText)","created_by":"ann","description":"","id":"8","kind":"group","logo_url":"","member_count":4,"name":"ops","title":"Ops"}"#
        #expect(try JSON.encode(info) == infoJSON)
        #expect(try JSON.decode(ConversationInfo.self, infoJSON) == info)
    }

    @Test func memberJoinedAt() throws {
        let member = Member(user: bob, role: .admin, joinedAt: at)
        #expect(try JSON.encode(member) == #"{"joined_at":"\#(atText)","role":"admin","user":\#(bobJSON)}"#)
    }
}

@Suite struct EventCodingTests {
    static let known: [(EventType, String)] = [
        (.message, "message"),
        (.messageEdited, "message_edited"),
        (.messageDeleted, "message_deleted"),
        (.memberJoined, "member_joined"),
        (.memberLeft, "member_left"),
        (.memberKicked, "member_kicked"),
        (.memberMuted, "member_muted"),
        (.memberUnmuted, "member_unmuted"),
        (.memberBanned, "member_banned"),
        (.memberUnbanned, "member_unbanned"),
        (.roleChanged, "role_changed"),
        (.memberInvited, "member_invited"),
        (.inviteRevoked, "invite_revoked"),
        (.joinRequested, "join_requested"),
        (.joinRequestRevoked, "join_request_revoked"),
        (.conversationUpdated, "conversation_updated"),
        (.profileUpdated, "profile_updated"),
        (.contactAdded, "contact_added"),
        (.read, "read"),
        (.kickedOut, "kicked_out"),
        (.notice, "notice"),
    ]

    @Test(arguments: known)
    func knownTypes(type: EventType, raw: String) throws {
        #expect(type.rawValue == raw)
        #expect(type.description == raw)
        #expect(EventType(rawValue: raw) == type)
        #expect(try JSON.encode([type]) == #"["\#(raw)"]"#)
        #expect(try JSON.decodeValue(EventType.self, #""\#(raw)""#) == type)
    }

    @Test func knownListsEveryNamedType() {
        #expect(EventType.known == Self.known.map(\.0))
    }

    @Test(arguments: ["reaction_added", "Message", "MESSAGE_DELETED", "", "member joined"])
    func unknownTypesAreKeptAsOther(raw: String) throws {
        let type = try JSON.decodeValue(EventType.self, #""\#(raw)""#)
        #expect(type == .other(raw))
        #expect(type.rawValue == raw)
        #expect(try JSON.encode([type]) == #"["\#(raw)"]"#)
    }

    @Test func unknownEventRoundTripsUnchanged() throws {
        let text = #"{"at":"\#(atText)","by":"ann","conversation":{"address":"group:ops","id":"8","kind":"group"},"position":41,"seq":9,"type":"reaction_added"}"#
        let event = try JSON.decode(Event.self, text)
        #expect(event.type == .other("reaction_added"))
        #expect(event.position == 41)
        #expect(event.conversation?.address == .group("ops"))
        #expect(try JSON.encode(event) == text)
    }

    @Test func unknownFieldsOfANewerServerAreIgnored() throws {
        let event = try JSON.decode(
            Event.self, #"{"position":3,"type":"poll_created","at":"\#(atText)","poll":{"question":"?"}}"#)
        #expect(event == Event(position: 3, type: .other("poll_created"), at: at))
    }

    @Test func messageEvent() throws {
        let event = Event(
            position: 12, type: .message, at: at,
            conversation: ConversationRef(id: ConversationID(rawValue: 3), kind: .direct, address: .user("bob")),
            message: message)
        let text = #"{"at":"\#(atText)","conversation":{"address":"user:bob","id":"3","kind":"direct"},"message":\#(messageJSON),"position":12,"type":"message"}"#
        #expect(try JSON.encode(event) == text)
        #expect(try JSON.decode(Event.self, text) == event)
    }

    @Test func mutedAndKickedOutEvents() throws {
        let muted = Event(position: 5, type: .memberMuted, at: at, by: "ann", until: at.adding(seconds: 600))
        #expect(try JSON.encode(muted)
            == #"{"at":"\#(atText)","by":"ann","position":5,"type":"member_muted","until":"2026-11-29T16:26:50.123Z"}"#)
        let kicked = Event(position: 5, type: .kickedOut, at: at, reason: "same_device")
        #expect(try JSON.encode(kicked)
            == #"{"at":"\#(atText)","position":5,"reason":"same_device","type":"kicked_out"}"#)
    }

    @Test func batch() throws {
        let batch = EventBatch(events: [Event(position: 1, type: .read, at: at, seq: 3)], cursor: "c1")
        let text = #"{"cursor":"c1","events":[{"at":"\#(atText)","position":1,"seq":3,"type":"read"}]}"#
        #expect(try JSON.encode(batch) == text)
        #expect(try JSON.decode(EventBatch.self, text) == batch)
    }
}

@Suite struct ErrorEnvelopeTests {
    @Test func rateLimitedCarriesRetryAfter() throws {
        let envelope = ErrorEnvelope(error: APIError(.rateLimited, "slow down", retryAfter: 30))
        let text = #"{"error":{"code":"RATE_LIMITED","message":"slow down","retry_after":30}}"#
        #expect(try JSON.encode(envelope) == text)
        let decoded = try JSON.decode(ErrorEnvelope.self, text)
        #expect(decoded == envelope)
        #expect(decoded.error.retryAfter == 30)
    }

    @Test func fieldAndReason() throws {
        let invalid = ErrorEnvelope(error: .invalid("username", "username must be 1 to 32 characters long"))
        #expect(try JSON.encode(invalid)
            == #"{"error":{"code":"INVALID_REQUEST","field":"username","message":"username must be 1 to 32 characters long"}}"#)
        let unauthorized = ErrorEnvelope(error: APIError(.unauthorized, "logged in elsewhere", reason: "kicked_out"))
        #expect(try JSON.encode(unauthorized)
            == #"{"error":{"code":"UNAUTHORIZED","message":"logged in elsewhere","reason":"kicked_out"}}"#)
    }

    @Test func decodesAServerAnswer() throws {
        let text = #"{"error":{"message":"try later","code":"UNAVAILABLE","retry_after":5,"field":null,"trace":"x"}}"#
        #expect(try JSON.decode(ErrorEnvelope.self, text).error == APIError(.unavailable, "try later", retryAfter: 5))
    }

    @Test(arguments: ErrorCode.allCases)
    func everyCodeRoundTrips(code: ErrorCode) throws {
        let envelope = ErrorEnvelope(error: APIError(code, "m", retryAfter: 1, field: "f", reason: "r"))
        let text = try JSON.encode(envelope)
        #expect(text == #"{"error":{"code":"\#(code.rawValue)","field":"f","message":"m","reason":"r","retry_after":1}}"#)
        #expect(try JSON.decode(ErrorEnvelope.self, text) == envelope)
    }
}

@Suite struct APIErrorTests {
    @Test(arguments: [
        (ErrorCode.invalidRequest, "INVALID_REQUEST", 400),
        (.unauthorized, "UNAUTHORIZED", 401),
        (.forbidden, "FORBIDDEN", 403),
        (.notFound, "NOT_FOUND", 404),
        (.methodNotAllowed, "METHOD_NOT_ALLOWED", 405),
        (.conflict, "CONFLICT", 409),
        (.cursorExpired, "CURSOR_EXPIRED", 410),
        (.payloadTooLarge, "PAYLOAD_TOO_LARGE", 413),
        (.unsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE", 415),
        (.rateLimited, "RATE_LIMITED", 429),
        (.internalError, "INTERNAL", 500),
        (.unavailable, "UNAVAILABLE", 503),
    ])
    func codes(code: ErrorCode, raw: String, status: Int) {
        #expect(code.rawValue == raw)
        #expect(code.httpStatus == status)
    }

    @Test func everyCodeIsListed() {
        #expect(ErrorCode.allCases.count == 12)
        #expect(Set(ErrorCode.allCases.map(\.httpStatus)).count == 12)
    }

    @Test func descriptionAndInvalid() {
        #expect(APIError(.notFound, "no user 'bob'").description == "NOT_FOUND: no user 'bob'")
        #expect(APIError.invalid("text", "too long") == APIError(.invalidRequest, "too long", field: "text"))
        #expect(APIError.invalid("text", "too long") != APIError(.invalidRequest, "too long"))
    }
}

@Suite struct MemberRoleTests {
    @Test func ordersByStanding() {
        #expect(MemberRole.member < .admin)
        #expect(MemberRole.admin < .owner)
        #expect(!(MemberRole.owner < .owner))
        #expect([MemberRole.owner, .member, .admin].sorted() == [.member, .admin, .owner])
        #expect(MemberRole.allCases.max() == .owner)
    }

    @Test func rawValues() throws {
        #expect(try JSON.encode(MemberRole.allCases) == #"["member","admin","owner"]"#)
        #expect(throws: DecodingError.self) { try JSON.decodeValue(MemberRole.self, #""moderator""#) }
    }
}
