import IMProtocol
import Testing

private let nameRule =
    "may contain only letters a-z, digits, '.', '_' and '-', and must start with a letter or digit"

@Suite struct NameValidationTests {
    @Test(arguments: [
        ("alice", "alice"),
        ("Alice", "alice"),
        ("BOB-2", "bob-2"),
        ("a", "a"),
        ("0day", "0day"),
        ("a.b_c-d", "a.b_c-d"),
        ("x--", "x--"),
        (String(repeating: "z", count: 32), String(repeating: "z", count: 32)),
    ])
    func acceptsUsernames(raw: String, stored: String) throws {
        #expect(try Validate.username(raw) == stored)
    }

    @Test(arguments: ["", String(repeating: "a", count: 33)])
    func rejectsUsernameLength(raw: String) {
        #expect(throws: APIError.invalid("username", "username must be 1 to 32 characters long")) {
            try Validate.username(raw)
        }
    }

    @Test(arguments: ["_bob", ".bob", "-bob", "bob smith", "bob!", "bob@example", "bób", "b\u{0}b", "bob/x", "bob:x"])
    func rejectsUsernameCharacters(raw: String) {
        #expect(throws: APIError.invalid("username", "username \(nameRule)")) {
            try Validate.username(raw)
        }
    }

    @Test func lengthIsCheckedInUTF8Bytes() {
        // 17 two-byte letters: 34 bytes, over the limit before the characters are looked at.
        #expect(throws: APIError.invalid("username", "username must be 1 to 32 characters long")) {
            try Validate.username(String(repeating: "é", count: 17))
        }
        #expect(throws: APIError.invalid("username", "username \(nameRule)")) {
            try Validate.username(String(repeating: "é", count: 16))
        }
    }

    @Test func conversationNames() throws {
        #expect(try Validate.conversationName("Ops-Team") == "ops-team")
        #expect(try Validate.conversationName(String(repeating: "g", count: 64)) == String(repeating: "g", count: 64))
        #expect(throws: APIError.invalid("name", "name must be 1 to 64 characters long")) {
            try Validate.conversationName(String(repeating: "g", count: 65))
        }
        #expect(throws: APIError.invalid("group", "group \(nameRule)")) {
            try Validate.conversationName("the ops", field: "group")
        }
    }

    @Test func errorsAreInvalidRequests() {
        do {
            _ = try Validate.username("")
            Issue.record("an empty username was accepted")
        } catch let error as APIError {
            #expect(error.code == .invalidRequest)
            #expect(error.code.httpStatus == 400)
            #expect(error.field == "username")
            #expect(error.retryAfter == nil)
            #expect(error.reason == nil)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }
}

@Suite struct TextValidationTests {
    @Test(arguments: ["a", "Alice Smith", "héllo 👋🏽", String(repeating: "x", count: 64), String(repeating: "👍🏽", count: 64)])
    func acceptsText(value: String) throws {
        try Validate.text(value, field: "nickname", length: Limits.nicknameLength)
    }

    @Test(arguments: ["", " ", "   ", "\t", " \u{3000} "])
    func rejectsEmptyOrBlankText(value: String) {
        #expect(throws: APIError.invalid("nickname", "nickname must not be empty")) {
            try Validate.text(value, field: "nickname", length: Limits.nicknameLength)
        }
    }

    @Test func rejectsOverLongTextWithItsLength() {
        #expect(throws: APIError.invalid("nickname", "nickname must be at most 64 characters (got 65)")) {
            try Validate.text(String(repeating: "x", count: 65), field: "nickname", length: Limits.nicknameLength)
        }
        // Characters, not bytes or scalars, are counted.
        #expect(throws: APIError.invalid("nickname", "nickname must be at most 64 characters (got 65)")) {
            try Validate.text(String(repeating: "e\u{301}", count: 65), field: "nickname", length: Limits.nicknameLength)
        }
        // Blank but too long is reported as too long.
        #expect(throws: APIError.invalid("nickname", "nickname must be at most 64 characters (got 65)")) {
            try Validate.text(String(repeating: " ", count: 65), field: "nickname", length: Limits.nicknameLength)
        }
    }

    @Test func optionalTextMayBeEmptyOrBlank() throws {
        try Validate.text("", field: "signature", length: Limits.signatureLength)
        try Validate.text("   ", field: "signature", length: Limits.signatureLength)
        #expect(throws: APIError.invalid("signature", "signature must be at most 256 characters (got 257)")) {
            try Validate.text(String(repeating: "s", count: 257), field: "signature", length: Limits.signatureLength)
        }
    }

    @Test(arguments: ["a\nb", "a\tb", "a\rb", "a\u{0}b", "\u{1B}[31m", "a\u{7F}", "x\u{1F}"])
    func singleLineTextRejectsControlCharacters(value: String) {
        #expect(throws: APIError.invalid("nickname", "nickname must not contain control characters")) {
            try Validate.text(value, field: "nickname", length: Limits.nicknameLength)
        }
    }

    @Test(arguments: ["line 1\nline 2", "a\tb", "a\r\nb", "\n\nx"])
    func multilineTextAllowsLineBreaksAndTabs(value: String) throws {
        try Validate.text(value, field: "text", length: Limits.messageTextLength, multiline: true)
    }

    @Test(arguments: ["a\u{0}b", "\u{1B}[31m", "a\u{7F}", "a\u{8}", "a\u{85}b", "\u{9B}31m", "a\u{80}"])
    func multilineTextRejectsOtherControlCharacters(value: String) {
        #expect(throws: APIError.invalid("text", "text must not contain control characters")) {
            try Validate.text(value, field: "text", length: Limits.messageTextLength, multiline: true)
        }
    }

    @Test func multilineBlankTextIsEmpty() {
        #expect(throws: APIError.invalid("text", "text must not be empty")) {
            try Validate.text("\n \t\n", field: "text", length: Limits.messageTextLength, multiline: true)
        }
    }
}

@Suite struct PasswordURLAndAttrsValidationTests {
    static let passwordLength = APIError.invalid("password", "password must be 8 to 1024 bytes long")

    @Test(arguments: ["12345678", "éééé", String(repeating: "p", count: 1024), "        "])
    func acceptsPasswords(value: String) throws {
        try Validate.password(value)
    }

    @Test(arguments: ["", "1234567", "ééé", String(repeating: "p", count: 1025)])
    func rejectsPasswordLength(value: String) {
        #expect(throws: Self.passwordLength) { try Validate.password(value) }
    }

    @Test(arguments: ["", "https://example.com/a.png", "http://example.com", "HTTPS://EXAMPLE.COM/X", "/v1/media/abc123"])
    func acceptsURLs(value: String) throws {
        try Validate.url(value, field: "avatar_url")
    }

    @Test(arguments: ["ftp://example.com/a", "example.com/a.png", "//example.com", "/v1/other/x", "/V1/MEDIA/x", "javascript:alert(1)", " "])
    func rejectsOtherURLs(value: String) {
        #expect(throws: APIError.invalid("avatar_url", "avatar_url must be an http(s) URL or a /v1/media/ path")) {
            try Validate.url(value, field: "avatar_url")
        }
    }

    @Test func urlLengthAndControlCharacters() throws {
        let base = "https://example.com/"
        try Validate.url(base + String(repeating: "a", count: 2048 - base.count), field: "logo_url")
        #expect(throws: APIError.invalid("logo_url", "logo_url must be at most 2048 characters (got 2049)")) {
            try Validate.url(base + String(repeating: "a", count: 2049 - base.count), field: "logo_url")
        }
        #expect(throws: APIError.invalid("logo_url", "logo_url must not contain control characters")) {
            try Validate.url("https://example.com/\na", field: "logo_url")
        }
    }

    @Test func attrs() throws {
        try Validate.attrs([:])
        try Validate.attrs(["team": "ops", "bio": "line 1\nline 2", "empty": ""])
        let full = Dictionary(uniqueKeysWithValues: (1...32).map { ("k\($0)", "v") })
        try Validate.attrs(full)
        var tooMany = full
        tooMany["k33"] = "v"
        #expect(throws: APIError.invalid("attrs", "at most 32 attrs are allowed")) { try Validate.attrs(tooMany) }
    }

    @Test func attrKeys() {
        #expect(throws: APIError.invalid("attrs", "attrs must not be empty")) { try Validate.attrs(["": "v"]) }
        #expect(throws: APIError.invalid("attrs", "attrs must not be empty")) { try Validate.attrs([" ": "v"]) }
        #expect(throws: APIError.invalid("attrs", "attrs must be at most 64 characters (got 65)")) {
            try Validate.attrs([String(repeating: "k", count: 65): "v"])
        }
        #expect(throws: APIError.invalid("attrs", "attrs must not contain control characters")) {
            try Validate.attrs(["a\nb": "v"])
        }
    }

    @Test func attrValuesNameTheirKey() {
        #expect(throws: APIError.invalid("attrs.team", "attrs.team must not contain control characters")) {
            try Validate.attrs(["team": "o\u{0}ps"])
        }
        #expect(throws: APIError.invalid("attrs.team", "attrs.team must be at most 1024 characters (got 1025)")) {
            try Validate.attrs(["team": String(repeating: "v", count: 1025)])
        }
    }
}

@Suite struct RequestValidationTests {
    @Test func sendMessage() throws {
        try SendMessageRequest(text: "hello\nworld", clientMessageID: "c-1").validate()
        try SendMessageRequest(text: String(repeating: "m", count: 4096)).validate()
        #expect(throws: APIError.invalid("text", "text must not be empty")) {
            try SendMessageRequest(text: "").validate()
        }
        #expect(throws: APIError.invalid("text", "text must be at most 4096 characters (got 4097)")) {
            try SendMessageRequest(text: String(repeating: "m", count: 4097)).validate()
        }
        #expect(throws: APIError.invalid("client_msg_id", "client_msg_id must not be empty")) {
            try SendMessageRequest(text: "hi", clientMessageID: "").validate()
        }
        #expect(throws: APIError.invalid("client_msg_id", "client_msg_id must not contain control characters")) {
            try SendMessageRequest(text: "hi", clientMessageID: "a\nb").validate()
        }
        #expect(throws: APIError.invalid("client_msg_id", "client_msg_id must be at most 128 characters (got 129)")) {
            try SendMessageRequest(text: "hi", clientMessageID: String(repeating: "c", count: 129)).validate()
        }
    }

    @Test func profileUpdate() throws {
        #expect(ProfileUpdate().isEmpty)
        #expect(!ProfileUpdate(signature: "").isEmpty)
        #expect(!ProfileUpdate(attrs: [:]).isEmpty)
        try ProfileUpdate().validate()
        try ProfileUpdate(nickname: "Bob", avatarURL: "", signature: "", attrs: ["a": "b"]).validate()
        #expect(throws: APIError.invalid("avatar_url", "avatar_url must be an http(s) URL or a /v1/media/ path")) {
            try ProfileUpdate(avatarURL: "ftp://x").validate()
        }
        #expect(throws: APIError.invalid("signature", "signature must not contain control characters")) {
            try ProfileUpdate(signature: "two\nlines").validate()
        }
        #expect(throws: APIError.invalid("attrs", "at most 32 attrs are allowed")) {
            try ProfileUpdate(attrs: Dictionary(uniqueKeysWithValues: (0...32).map { ("k\($0)", "") })).validate()
        }
        // The first field that breaks a rule is reported.
        #expect(throws: APIError.invalid("nickname", "nickname must not be empty")) {
            try ProfileUpdate(nickname: "", avatarURL: "ftp://x").validate()
        }
    }

    @Test func conversationInfoUpdate() throws {
        #expect(ConversationInfoUpdate().isEmpty)
        #expect(!ConversationInfoUpdate(description: "").isEmpty)
        try ConversationInfoUpdate(title: "Ops", logoURL: "/v1/media/1", description: "a\nb").validate()
        #expect(throws: APIError.invalid("title", "title must not be empty")) {
            try ConversationInfoUpdate(title: " ").validate()
        }
        #expect(throws: APIError.invalid("logo_url", "logo_url must be an http(s) URL or a /v1/media/ path")) {
            try ConversationInfoUpdate(logoURL: "logo.png").validate()
        }
        #expect(throws: APIError.invalid("description", "description must be at most 1024 characters (got 1025)")) {
            try ConversationInfoUpdate(description: String(repeating: "d", count: 1025)).validate()
        }
    }
}

/// Byte limits beside character limits, and names that cannot pass for others (issue 8,
/// items 4 and 21).
@Suite struct ByteAndSpoofingValidationTests {
    @Test func oneCharacterOfManyCombiningMarksIsRefusedByItsBytes() {
        let heavy = "a" + String(repeating: "\u{0301}", count: 100_000)
        #expect(heavy.count == 1)
        #expect(throws: APIError.invalid("text", "text must be at most 32768 bytes of UTF-8 (got 200001)")) {
            try Validate.text(heavy, field: "text", length: Limits.messageTextLength, multiline: true)
        }
        #expect(Limits.byteLimit(for: Limits.nicknameLength) == 512)
    }

    @Test(arguments: ["👍🏽", "🇩🇪", "Zoë", "佐藤", "שלום"])
    func emojiAndScriptsFitTheirBytes(_ unit: String) throws {
        try Validate.nickname(String(repeating: unit, count: 64 / max(unit.count, 1)))
    }

    @Test(arguments: [
        ("ali\u{200B}ce", "200B"), ("\u{202E}txt.exe", "202E"), ("x\u{2066}y", "2066"), ("\u{FEFF}bom", "FEFF"),
        ("a\u{200D}b", "200D"), ("tag\u{E0041}", "E0041"), ("soft\u{00AD}hyphen", "00AD"), ("fill\u{3164}er", "3164"),
    ])
    func invisibleAndBidiCharactersAreRefusedInDisplayNames(_ name: String, _ code: String) {
        #expect(throws: APIError.invalid(
            "nickname", "nickname must not contain invisible or direction-changing characters (found U+\(code))")) {
            try Validate.nickname(name)
        }
    }

    @Test func plainTextMayStillCarryThem() throws {
        try Validate.text("a\u{200F}b\u{200D}c", field: "text", length: Limits.messageTextLength, multiline: true)
    }
}
