import Foundation
import IMProtocol
import TestSupport
import Testing

/// What one request may carry and one answer may hold (issue 8, items 4, 5 and 21).
@Suite(.sharedServer) struct InputBoundsTests {
    let server: TestServer
    init() throws { server = try SharedServer.current }

    /// One character made of 100,000 combining marks: within the character limit, far
    /// past the byte limit.
    static let heavy = "a" + String(repeating: "\u{0301}", count: 100_000)

    /// Item 4: text limits count UTF-8 bytes as well as characters.
    @Test func oneCharacterOfAHundredThousandCombiningMarksIsRefusedEverywhere() async throws {
        #expect(Self.heavy.count == 1)
        let (alice, _) = try await server.client.newUser("marks")
        let (_, bob) = try await server.client.newUser("reader")
        let byteLimit = Limits.byteLimit(for: Limits.messageTextLength)
        let sent = try await alice.send(
            "POST", "/v1/conversations/user:\(bob.username)/messages", json: SendMessageRequest(text: Self.heavy))
        expectError(sent, .invalidRequest, field: "text")
        #expect(sent.error?.message == "text must be at most \(byteLimit) bytes of UTF-8 (got \(Self.heavy.utf8.count))")
        let renamed = try await alice.send("PATCH", "/v1/me", json: ProfileUpdate(nickname: Self.heavy))
        expectError(renamed, .invalidRequest, field: "nickname")
        let attrs = try await alice.send("PATCH", "/v1/me", json: ProfileUpdate(attrs: ["k": Self.heavy]))
        expectError(attrs, .invalidRequest, field: "attrs.k")
        let group = try await alice.send(
            "POST", "/v1/groups", json: CreateConversationRequest(name: Names.unique("g"), title: Self.heavy))
        expectError(group, .invalidRequest, field: "title")
        // Nothing was stored.
        #expect(try await alice.history("user:\(bob.username)").messages.isEmpty)
    }

    /// Item 4: one history page, and one poll answer, stay within `Limits.answerBytes`,
    /// however large the messages; the rest comes with the next page or poll.
    @Test func aPageAndAPollStayWithinTheirBytes() async throws {
        let (alice, aliceUser) = try await server.client.newUser("writer")
        let (bob, bobUser) = try await server.client.newUser("bulk")
        let cursor = try await bob.cursor()
        let text = String(repeating: "x", count: 4_000)
        for index in 0..<200 { try await alice.message("user:\(bobUser.username)", "\(index) \(text)") }

        let page = try await bob.get("/v1/conversations/user:\(aliceUser.username)/messages?limit=200")
        expectStatus(page, 200)
        #expect(page.body.count <= Limits.answerBytes)
        let messages = try page.decode(MessagePage.self)
        #expect(messages.messages.count < 200)
        #expect(messages.nextBefore == messages.messages.last?.seq)

        let first = try await bob.poll(cursor, limit: 1000)
        expectStatus(first, 200)
        #expect(first.body.count <= Limits.answerBytes)
        let batch = try first.decode(EventBatch.self)
        #expect(batch.events.count < 200)
        let rest = try await bob.events(after: batch.cursor, limit: 1000)
        #expect(batch.events.count + rest.events.count == 200)
    }

    /// Item 21: a display name may not hide characters or turn text around.
    @Test(arguments: ["ali\u{200B}ce", "\u{202E}gnp.exe", "bob\u{2066}", "\u{FEFF}carol", "eve\u{200D}", "x\u{E0041}"])
    func invisibleAndDirectionCharactersAreRefusedInNames(_ name: String) async throws {
        let (alice, _) = try await server.client.newUser("spoof")
        let renamed = try await alice.send("PATCH", "/v1/me", json: ProfileUpdate(nickname: name))
        expectError(renamed, .invalidRequest, field: "nickname")
        #expect(renamed.error?.message.contains("invisible or direction-changing") == true)
        let registered = try await server.client.send(
            "POST", "/v1/register", json: RegisterRequest(username: Names.unique("n"), password: "long enough pw", nickname: name))
        expectError(registered, .invalidRequest, field: "nickname")
        let group = try await alice.send(
            "POST", "/v1/groups", json: CreateConversationRequest(name: Names.unique("g"), title: name))
        expectError(group, .invalidRequest, field: "title")
    }

    @Test func messagesMayStillCarryThem() async throws {
        let (alice, _) = try await server.client.newUser("hebrew")
        let (_, bob) = try await server.client.newUser("arabic")
        try await alice.message("user:\(bob.username)", "שלום \u{200F}hello\u{200E} 👨‍👩‍👧")
    }

    /// Item 5: a new avatar replaces the old one, which is gone; the same image again is
    /// the same stored copy.
    @Test func avatarsReplaceAndDoNotPileUp() async throws {
        let (alice, _) = try await server.client.newUser("faces")
        let first = try await alice.send("PUT", "/v1/me/avatar", body: Data(ImageBytes.png)).decode(AvatarUpload.self)
        let second = try await alice.send("PUT", "/v1/me/avatar", body: Data(ImageBytes.jpeg)).decode(AvatarUpload.self)
        expectError(try await server.client.get(first.media.url), .notFound)
        expectStatus(try await server.client.get(second.media.url), 200)
        let again = try await alice.send("PUT", "/v1/me/avatar", body: Data(ImageBytes.jpeg)).decode(AvatarUpload.self)
        #expect(again.media.id == second.media.id)
        let external = try await alice.send("PATCH", "/v1/me", json: ProfileUpdate(avatarURL: "https://example.com/me.png"))
        expectStatus(external, 200)
        expectError(try await server.client.get(second.media.url), .notFound)
    }

    /// Item 5: nobody shows (and so keeps alive) someone else's upload.
    @Test func aProfileOrGroupShowsOnlyItsOwnUploads() async throws {
        let (alice, _) = try await server.client.newUser("owner")
        let (mallory, _) = try await server.client.newUser("pinner")
        let upload = try await alice.send("PUT", "/v1/me/avatar", body: Data(ImageBytes.gif)).decode(AvatarUpload.self)
        let pinned = try await mallory.send("PATCH", "/v1/me", json: ProfileUpdate(avatarURL: upload.media.url))
        expectError(pinned, .invalidRequest, field: "avatar_url")
        let logo = try await mallory.send(
            "POST", "/v1/groups", json: CreateConversationRequest(name: Names.unique("g"), logoURL: upload.media.url))
        expectError(logo, .invalidRequest, field: "logo_url")
    }
}

/// Item 5: the media budget of one account.
@Suite struct MediaBudgetTests {
    @Test func uploadsPastTheAccountsBudgetAre413() async throws {
        try await withServer({ $0.mediaBytesPerAccount = 100 }) { server in
            let (alice, _) = try await server.client.register("alice")
            let first = try await alice.send("PUT", "/v1/me/avatar", body: Data(ImageBytes.png)).decode(AvatarUpload.self)
            let group = try await alice.create(.group, "team")
            expectStatus(
                try await alice.send("PATCH", "/v1/groups/\(group.name)", json: ConversationInfoUpdate(logoURL: first.media.url)), 200)
            // The logo keeps the first image: a second one would pass 100 bytes.
            let second = try await alice.send("PUT", "/v1/me/avatar", body: Data(ImageBytes.jpeg))
            expectError(second, .payloadTooLarge)
            #expect(second.error?.message.contains("media budget of 100 bytes") == true)
            // Showing something else as the logo frees it.
            expectStatus(
                try await alice.send(
                    "PATCH", "/v1/groups/\(group.name)", json: ConversationInfoUpdate(logoURL: "https://example.com/l.png")), 200)
            expectStatus(try await alice.send("PUT", "/v1/me/avatar", body: Data(ImageBytes.jpeg)), 200)
        }
    }
}
