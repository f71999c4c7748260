import Foundation
import IMClient
import IMProtocol
import Testing

/// Every call sends the method, path, headers and body the API contract names.
@Suite("IMClient request shapes")
struct RequestShapeTests {
    private func makeClient(_ answers: [ScriptedTransport.Answer], token: String? = "sbt_old", device: String? = nil)
        -> (IMClient, ScriptedTransport)
    {
        let transport = ScriptedTransport(answers)
        return (IMClient(serverURL: Fixtures.server + "/", transport: transport, token: token, device: device), transport)
    }

    private func body(_ request: TransportRequest) throws -> [String: Any] {
        let data = try #require(request.body)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func registerPostsTheAccountWithoutATokenAndAdoptsTheNewOne() async throws {
        let (client, transport) = makeClient([.respond(Fixtures.json(Fixtures.auth, status: 201))], token: nil, device: "laptop")

        let auth = try await client.register(username: "Alice", password: "correct horse", nickname: "Al", bot: true)

        let request = try #require(transport.requests.first)
        #expect(request.method == "POST")
        #expect(request.url == "http://127.0.0.1:8080/v1/register")
        #expect(request.header("Authorization") == nil)
        #expect(request.header("Content-Type") == "application/json")
        let json = try body(request)
        #expect(json["username"] as? String == "Alice")
        #expect(json["password"] as? String == "correct horse")
        #expect(json["nickname"] as? String == "Al")
        #expect(json["bot"] as? Bool == true)
        #expect(json["device"] as? String == "laptop")
        #expect(auth.token == "sbt_new")
        #expect(client.token == "sbt_new")
        #expect(client.currentUser?.username == "alice")
    }

    @Test func loginSendsTheDeviceAndLaterCallsUseTheNewToken() async throws {
        let (client, transport) = makeClient(
            [.respond(Fixtures.json(Fixtures.auth)), .respond(Fixtures.json(Fixtures.user("alice")))], token: nil)

        try await client.login(username: "alice", password: "pw-pw-pw-pw", device: "phone")
        _ = try await client.me()

        let login = try #require(transport.requests.first)
        #expect(login.method == "POST")
        #expect(path(login) == "/v1/login")
        #expect(try body(login)["device"] as? String == "phone")
        let me = transport.requests[1]
        #expect(me.method == "GET")
        #expect(path(me) == "/v1/me")
        #expect(me.header("Authorization") == "Bearer sbt_new")
    }

    @Test func logoutEndsTheLoginAndForgetsTheToken() async throws {
        let (client, transport) = makeClient([.respond(TransportResponse(status: 204))])

        try await client.logout()

        #expect(transport.requests.map(\.method) == ["POST"])
        #expect(path(transport.requests[0]) == "/v1/logout")
        #expect(transport.requests[0].header("Authorization") == "Bearer sbt_old")
        #expect(client.token == nil)
    }

    @Test func logoutOfALoginTheServerAlreadyEndedSucceeds() async throws {
        let (client, _) = makeClient([.respond(Fixtures.error(.unauthorized, "this login has ended", reason: "logged_out"))])

        try await client.logout()

        #expect(client.token == nil)
    }

    @Test func profileCallsUseMePaths() async throws {
        let upload = AvatarUpload(
            user: Fixtures.user("alice"), media: MediaInfo(id: "m1", url: "/v1/media/m1", contentType: "image/png", size: 3))
        let (client, transport) = makeClient([
            .respond(Fixtures.json(Fixtures.user("alice"))),
            .respond(Fixtures.json(Fixtures.auth)),
            .respond(Fixtures.json(upload)),
        ])

        try await client.updateProfile(ProfileUpdate(nickname: "Ally", signature: "hello"))
        try await client.changePassword(old: "old-password", new: "new-password")
        try await client.uploadAvatar(DefaultAvatar.png)

        let requests = transport.requests
        #expect(requests.map(\.method) == ["PATCH", "PUT", "PUT"])
        #expect(requests.map(path) == ["/v1/me", "/v1/me/password", "/v1/me/avatar"])
        let update = try body(requests[0])
        #expect(update["nickname"] as? String == "Ally")
        #expect(update["signature"] as? String == "hello")
        #expect(update["avatar_url"] == nil)
        let change = try body(requests[1])
        #expect(change["old_password"] as? String == "old-password")
        #expect(change["new_password"] as? String == "new-password")
        #expect(client.token == "sbt_new")
        #expect(requests[2].body == DefaultAvatar.png)
        #expect(requests[2].header("Content-Type") == "image/png")
        #expect(requests[2].header("Authorization") == "Bearer sbt_new")
    }

    @Test func userLookupsAndContacts() async throws {
        let list = UserList(users: [Fixtures.user("bob")], missing: ["zed"])
        let (client, transport) = makeClient([
            .respond(Fixtures.json(Fixtures.user("bob"))),
            .respond(Fixtures.json(list)),
            .respond(Fixtures.json(UserList(users: []))),
            .respond(Fixtures.json(Fixtures.user("bob"), status: 201)),
            .respond(TransportResponse(status: 204)),
        ])

        _ = try await client.user(named: "bob")
        let found = try await client.users(named: ["bob", "zed", "BOB"])
        _ = try await client.contacts()
        try await client.addContact("bob")
        try await client.removeContact("bob")

        let requests = transport.requests
        #expect(requests.map(\.method) == ["GET", "GET", "GET", "PUT", "DELETE"])
        #expect(requests.map(path) == ["/v1/users/bob", "/v1/users", "/v1/contacts", "/v1/contacts/bob", "/v1/contacts/bob"])
        #expect(requests[1].url.hasSuffix("/v1/users?names=bob,zed"))
        #expect(found.users.map(\.username) == ["bob"])
        #expect(found.missing == ["zed"])
    }

    @Test func batchLookupOfManyNamesIsSplitIntoRequestsOfAHundred() async throws {
        let (client, transport) = makeClient([
            .respond(Fixtures.json(UserList(users: [Fixtures.user("u0")], missing: []))),
            .respond(Fixtures.json(UserList(users: [Fixtures.user("u100")], missing: ["u101"]))),
        ])

        let found = try await client.users(named: (0..<150).map { "u\($0)" })

        #expect(transport.requests.count == 2)
        #expect(queryItems(transport.requests[0])["names"]?.split(separator: ",").count == 100)
        #expect(queryItems(transport.requests[1])["names"]?.split(separator: ",").count == 50)
        #expect(found.users.map(\.username) == ["u0", "u100"])
        #expect(found.missing == ["u101"])
    }

    @Test func groupCallsUseGroupPaths() async throws {
        let info = Fixtures.json(Fixtures.info("ops"))
        let (client, transport) = makeClient([
            .respond(Fixtures.json(Fixtures.info("ops"), status: 201)), .respond(info),
            .respond(TransportResponse(status: 204)), .respond(Fixtures.json(MemberList(members: []))), .respond(info),
            .respond(info), .respond(Fixtures.json(ConversationInfoList(items: []))),
        ])

        try await client.createGroup(name: "ops", title: "Operations", description: "on call")
        try await client.joinGroup("ops")
        try await client.leaveGroup("ops")
        _ = try await client.groupMembers("ops")
        _ = try await client.groupInfo("ops")
        try await client.updateGroup("ops", ConversationInfoUpdate(description: "pager"))
        _ = try await client.myGroups()

        let requests = transport.requests
        #expect(requests.map(\.method) == ["POST", "POST", "POST", "GET", "GET", "PATCH", "GET"])
        #expect(requests.map(path) == [
            "/v1/groups", "/v1/groups/ops/join", "/v1/groups/ops/leave", "/v1/groups/ops/members", "/v1/groups/ops",
            "/v1/groups/ops", "/v1/groups",
        ])
        let create = try body(requests[0])
        #expect(create["name"] as? String == "ops")
        #expect(create["title"] as? String == "Operations")
        #expect(create["description"] as? String == "on call")
        #expect(try body(requests[5]) as NSDictionary == ["description": "pager"] as NSDictionary)
    }

    @Test func roomCallsUseRoomPaths() async throws {
        let info = Fixtures.json(Fixtures.info("lobby", kind: .room))
        let (client, transport) = makeClient([
            .respond(info), .respond(info), .respond(TransportResponse(status: 204)),
            .respond(Fixtures.json(MemberList(members: []))), .respond(info), .respond(info),
            .respond(Fixtures.json(ConversationInfoList(items: []))),
        ])

        try await client.createRoom(name: "lobby")
        try await client.enterRoom("lobby")
        try await client.leaveRoom("lobby")
        _ = try await client.roomMembers("lobby")
        _ = try await client.roomInfo("lobby")
        try await client.updateRoom("lobby", ConversationInfoUpdate(title: "Lobby"))
        _ = try await client.myRooms()

        let requests = transport.requests
        #expect(requests.map(\.method) == ["POST", "POST", "POST", "GET", "GET", "PATCH", "GET"])
        #expect(requests.map(path) == [
            "/v1/rooms", "/v1/rooms/lobby/enter", "/v1/rooms/lobby/leave", "/v1/rooms/lobby/members", "/v1/rooms/lobby",
            "/v1/rooms/lobby", "/v1/rooms",
        ])
    }

    @Test func conversationCallsTakeAddresses() async throws {
        let conversation = Conversation(
            id: ConversationID(rawValue: 7), kind: .direct, address: .user("bob"), displayName: "Bob", avatarURL: "",
            lastMessage: nil, unread: 2, lastReadSeq: 0, updatedAt: Fixtures.epoch)
        let (client, transport) = makeClient([
            .respond(Fixtures.json(ConversationList(conversations: [conversation]))),
            .respond(Fixtures.json(conversation)),
            .respond(Fixtures.json(MessagePage(messages: [], nextBefore: nil))),
            .respond(Fixtures.json(Fixtures.message("hi"), status: 201)),
            .respond(Fixtures.json(ReadMarker(seq: 5))),
        ])

        let list = try await client.conversations()
        _ = try await client.conversation(.user("bob"))
        _ = try await client.history(.group("ops"), before: 41, limit: 10)
        try await client.send("hi", to: .room("lobby"), replyTo: MessageID(rawValue: 3))
        let marker = try await client.markRead(.id(ConversationID(rawValue: 7)), seq: 5)

        let requests = transport.requests
        #expect(list.first?.unread == 2)
        #expect(requests.map(\.method) == ["GET", "GET", "GET", "POST", "POST"])
        #expect(requests.map(path) == [
            "/v1/conversations", "/v1/conversations/user:bob", "/v1/conversations/group:ops/messages",
            "/v1/conversations/room:lobby/messages", "/v1/conversations/7/read",
        ])
        #expect(queryItems(requests[2]) == ["before": "41", "limit": "10"])
        let send = try body(requests[3])
        #expect(send["text"] as? String == "hi")
        #expect(send["reply_to"] as? String == "3")
        let clientID = try #require(send["client_msg_id"] as? String)
        #expect(UUID(uuidString: clientID) != nil)
        #expect(try body(requests[4])["seq"] as? Int == 5)
        #expect(marker == 5)
    }

    @Test func eachSendGetsItsOwnClientMessageID() async throws {
        let created = Fixtures.json(Fixtures.message("x"), status: 201)
        let (client, transport) = makeClient([.respond(created), .respond(created)])

        try await client.send("one", to: .user("bob"))
        try await client.send("two", to: .user("bob"))

        let ids = try transport.requests.map { try body($0)["client_msg_id"] as? String }
        #expect(ids[0] != nil)
        #expect(ids[0] != ids[1])
    }

    @Test func adminCalls() async throws {
        let admin = AdminUser(user: Fixtures.user("carol"), admin: false)
        let (client, transport) = makeClient([
            .respond(Fixtures.json(AdminUserList(users: [admin], next: "carol"))),
            .respond(Fixtures.json(admin, status: 201)),
            .respond(TransportResponse(status: 204)),
        ])

        let page = try await client.adminUsers(after: "bob", limit: 1)
        try await client.adminCreateUser(AdminCreateUser(username: "carol", password: "pw-pw-pw-pw", bot: true))
        try await client.adminSetPassword(username: "carol", password: "new-pw-new-pw")

        let requests = transport.requests
        #expect(page.next == "carol")
        #expect(requests.map(\.method) == ["GET", "POST", "PUT"])
        #expect(requests.map(path) == ["/v1/admin/users", "/v1/admin/users", "/v1/admin/users/carol/password"])
        #expect(queryItems(requests[0]) == ["after": "bob", "limit": "1"])
        #expect(try body(requests[1])["bot"] as? Bool == true)
        #expect(try body(requests[2]) as NSDictionary == ["password": "new-pw-new-pw"] as NSDictionary)
    }

    @Test func namesThatCouldBreakThePathArePercentEncoded() async throws {
        let (client, transport) = makeClient([.respond(Fixtures.error(.notFound)), .respond(Fixtures.error(.notFound))])

        _ = try? await client.user(named: "../admin?x=1")
        _ = try? await client.history(.group("a/b"))

        #expect(path(transport.requests[0]) == "/v1/users/..%2Fadmin%3Fx%3D1")
        #expect(path(transport.requests[1]) == "/v1/conversations/group:a%2Fb/messages")
    }

    @Test func callsThatNeedALoginFailWithoutSendingAnything() async throws {
        let (client, transport) = makeClient([], token: nil)

        let error = await #expect(throws: IMClientError.self) { try await client.conversations() }

        #expect(error?.code == .notLoggedIn)
        #expect(transport.requests.isEmpty)
    }
}
