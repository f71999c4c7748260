import IMProtocol
import Testing

@Suite struct ConversationAddressTests {
    @Test(arguments: [
        ("42", ConversationAddress.id(ConversationID(rawValue: 42))),
        ("user:bob", .user("bob")),
        ("group:ops", .group("ops")),
        ("room:lobby", .room("lobby")),
        // `direct:` is accepted as another spelling of `user:`.
        ("direct:bob", .user("bob")),
        // Only the first colon separates the kind; the rest belongs to the name.
        ("room:a:b", .room("a:b")),
    ])
    func parses(text: String, expected: ConversationAddress) {
        #expect(ConversationAddress(text) == expected)
    }

    @Test(arguments: [
        "", "0", "-3", "abc", "user:", "group:", "room:", ":bob", "team:ops", "User:bob",
        "user", " 42", "42 ", "9223372036854775808",
    ])
    func rejects(text: String) {
        #expect(ConversationAddress(text) == nil)
    }

    @Test(arguments: ["42", "user:bob", "group:ops", "room:lobby", "room:a:b", "9223372036854775807"])
    func descriptionRoundTrips(text: String) throws {
        let address = try #require(ConversationAddress(text))
        #expect(address.description == text)
        #expect(ConversationAddress(address.description) == address)
    }

    @Test func directIsWrittenAsUser() {
        #expect(ConversationAddress("direct:bob")?.description == "user:bob")
    }

    @Test(arguments: [
        (ConversationKind.direct, ConversationAddress.user("bob")),
        (.group, .group("bob")),
        (.room, .room("bob")),
    ])
    func fromKindAndName(kind: ConversationKind, expected: ConversationAddress) {
        #expect(ConversationAddress(kind: kind, name: "bob") == expected)
    }

    @Test func conversationInfoAddressUsesItsKind() {
        let info = ConversationInfo(
            id: ConversationID(rawValue: 7), kind: .room, name: "lobby", title: "Lobby",
            memberCount: 3, createdBy: nil, createdAt: Timestamp(milliseconds: 0))
        #expect(info.address == .room("lobby"))
        #expect(info.address.description == "room:lobby")
    }

    @Test func encodesAsString() throws {
        let addresses: [ConversationAddress] = [.id(ConversationID(rawValue: 5)), .user("bob"), .group("ops"), .room("lobby")]
        #expect(try JSON.encode(addresses) == #"["5","user:bob","group:ops","room:lobby"]"#)
        #expect(try JSON.decode([ConversationAddress].self, #"["5","direct:bob","group:ops","room:lobby"]"#)
            == [.id(ConversationID(rawValue: 5)), .user("bob"), .group("ops"), .room("lobby")])
    }

    @Test func decodingABadAddressExplains() {
        #expect(JSON.corruption(ConversationAddress.self, #""team:ops""#)
            == "not a conversation address: team:ops (use an id, user:NAME, group:NAME or room:NAME)")
    }

    @Test func numericJSONIsNotAnAddress() {
        #expect(throws: DecodingError.self) { try JSON.decodeValue(ConversationAddress.self, "42") }
    }

    @Test func kindRawValues() {
        #expect(ConversationKind.allCases.map(\.rawValue) == ["direct", "group", "room"])
    }
}

@Suite struct IdentifierTests {
    @Test(arguments: [("1", Int64(1)), ("42", 42), ("+7", 7), ("9223372036854775807", Int64.max)])
    func parsesPositiveDecimals(text: String, value: Int64) {
        #expect(UserID(text)?.rawValue == value)
        #expect(ConversationID(text)?.rawValue == value)
        #expect(MessageID(text)?.rawValue == value)
    }

    @Test(arguments: ["", "0", "-1", "abc", "1.5", "0x10", " 1", "9223372036854775808"])
    func rejectsOtherText(text: String) {
        #expect(UserID(text) == nil)
    }

    @Test func descriptionIsTheDecimalValue() {
        #expect(MessageID(rawValue: 1234).description == "1234")
        #expect(String(describing: UserID(rawValue: 9)) == "9")
    }

    @Test func encodesAsStringAndDecodesStringOrNumber() throws {
        #expect(try JSON.encode([UserID(rawValue: 9007199254740993)]) == #"["9007199254740993"]"#)
        #expect(try JSON.decode([UserID].self, #"["12", 13]"#) == [UserID(rawValue: 12), UserID(rawValue: 13)])
    }

    @Test func decodingRejectsNonPositiveValues() {
        #expect(JSON.corruption(MessageID.self, #""0""#) == "not an identifier: 0")
        #expect(JSON.corruption(MessageID.self, #""x1""#) == "not an identifier: x1")
        #expect(throws: DecodingError.self) { try JSON.decodeValue(MessageID.self, "0") }
        #expect(throws: DecodingError.self) { try JSON.decodeValue(MessageID.self, "-4") }
    }

    @Test func ordersByValue() {
        let ids = [MessageID(rawValue: 10), MessageID(rawValue: 2), MessageID(rawValue: 33)]
        #expect(ids.sorted().map(\.rawValue) == [2, 10, 33])
        #expect(MessageID(rawValue: 2) < MessageID(rawValue: 10))
    }
}
