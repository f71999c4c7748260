import Foundation
import IMClient
import IMProtocol
import MatrixClient
import Testing
import TestSupport

/// The Matrix client against a real Synapse: logins, the feed, messages, edits, replies,
/// redactions, membership and power levels.
@Suite("Matrix client")
struct MatrixClientTests {
    /// A room made by `owner` with `bot` invited (at `botLevel`) and joined.
    /// (Public, so that a member kicked or unbanned may join again.)
    private func room(owner: MatrixClient, bot: MatrixClient, botLevel: Int64 = 0, others: [MatrixClient] = [])
        async throws -> String
    {
        let botID = try bot.currentUser()
        var levels = PowerLevels()
        // The owner created the room: from room version 12 on (Synapse's default) a
        // creator outranks every level and may not be listed.
        levels.users = [botID.rawValue: botLevel]
        let invited = try [botID] + others.map { try $0.currentUser() }
        let roomID = try await owner.createRoom(NewRoom(
            preset: "public_chat", invite: invited, powerLevels: botLevel != 0 ? levels : nil))
        for member in [bot] + others { try await member.join(.id(roomID)) }
        return roomID
    }

    @Test func logsInByPasswordAndByAGivenToken() async throws {
        let server = try await SynapseTestServer.shared()
        let name = server.newUsername("login")
        _ = try await server.register(name, password: "secret-\(name)")
        let byPassword = MatrixClient(homeserver: server.baseURL, transport: SynapseTestServer.transport)
        let session = try await byPassword.login(user: name, password: "secret-\(name)", deviceID: "BOTDEVICE")
        #expect(session.deviceID == "BOTDEVICE")
        #expect(session.userID == server.userID(name))

        let byToken = MatrixClient(homeserver: server.baseURL, transport: SynapseTestServer.transport)
        let adopted = try await byToken.login(accessToken: session.accessToken, deviceID: "BOTDEVICE")
        #expect(adopted.userID == session.userID)
        await #expect(throws: IMClientError.self) {
            try await MatrixClient(homeserver: server.baseURL, transport: SynapseTestServer.transport)
                .login(accessToken: session.accessToken, deviceID: "OTHERDEVICE")
        }

        let wrong = MatrixClient(homeserver: server.baseURL, transport: SynapseTestServer.transport)
        let error = await #expect(throws: IMClientError.self) {
            try await wrong.login(user: name, password: "not it")
        }
        #expect(error?.apiCode == .forbidden)
        #expect(error?.api?.reason == "M_FORBIDDEN")
    }

    @Test func aBotSeesItsInviteJoinsAndReadsMessagesThroughAFilteredSync() async throws {
        let server = try await SynapseTestServer.shared()
        let alice = try await server.newClient("alice")
        let bot = try await server.newClient("bot")
        let roomID = try await alice.createRoom(NewRoom(invite: [try bot.currentUser()]))
        let filter = try await bot.createFilter(.bot)
        #expect(!filter.isEmpty)

        let botID = try bot.currentUser()
        let aliceID = try alice.currentUser()
        let watcher = SyncWatcher(bot)
        let invite = try await watcher.until("the invite") { $0.invites[roomID] }
        #expect(invite.inviter(of: botID) == aliceID.rawValue)
        #expect(try await bot.join(.id(roomID)) == roomID)

        try await alice.sendText("hello bot", to: roomID, transactionID: "hello-1")
        let message = try await watcher.until("alice's message") { seen in
            seen.messages(in: roomID).first { $0.body == "hello bot" }
        }
        #expect(message.sender == aliceID.rawValue)
        #expect(message.messageType == "m.text")

        // The filtered feed from the start carries the same message, and a later sync from
        // its next_batch does not repeat it.
        let first = try await bot.sync(since: nil, filter: filter, timeout: .zero)
        #expect(first.rooms.join[roomID]?.timeline.contains { $0.body == "hello bot" } == true)
        let next = try await bot.sync(since: first.nextBatch, filter: filter, timeout: .zero)
        #expect(next.rooms.join[roomID]?.timeline.contains { $0.body == "hello bot" } != true)
    }

    @Test func repliesEditsAndNoticesReachTheRoomAsMatrixClientsShowThem() async throws {
        let server = try await SynapseTestServer.shared()
        let alice = try await server.newClient("alice")
        let bot = try await server.newClient("bot")
        let roomID = try await room(owner: alice, bot: bot)
        let question = try await alice.sendText("/hours", to: roomID, transactionID: "q1")

        let reply = try await bot.sendText("9 to 5", to: roomID, kind: .notice, replyTo: question, transactionID: "r1")
        try await bot.edit(reply, in: roomID, to: "9 to 6", kind: .notice, transactionID: "r1-edit")

        let watcher = SyncWatcher(alice)
        let edit = try await watcher.until("the edit") { seen in seen.messages(in: roomID).first { $0.replaces == reply } }
        #expect(edit.newBody == "9 to 6")
        #expect(edit.body == "* 9 to 6")
        let seen = await watcher.seen
        let original = try #require(seen.messages(in: roomID).first { $0.eventID == reply })
        #expect(original.inReplyTo == question)
        #expect(original.messageType == "m.notice")
        #expect(original.transactionID == nil)  // another login's event carries no transaction id
    }

    @Test func aTransactionIDSentAgainMakesNoSecondMessage() async throws {
        let server = try await SynapseTestServer.shared()
        let alice = try await server.newClient("alice")
        let bot = try await server.newClient("bot")
        let roomID = try await room(owner: alice, bot: bot)
        let first = try await bot.sendText("once", to: roomID, transactionID: "reply-42")
        let again = try await bot.sendText("once", to: roomID, transactionID: "reply-42")
        #expect(first == again)
        try await bot.sendText("marker", to: roomID, transactionID: "marker")

        let watcher = SyncWatcher(bot)
        let seen = try await watcher.until("the marker") { seen in
            seen.messages(in: roomID).contains { $0.body == "marker" } ? seen : nil
        }
        #expect(seen.messages(in: roomID).filter { $0.body == "once" }.count == 1)
        #expect(seen.messages(in: roomID).first { $0.body == "once" }?.transactionID == "reply-42")
    }

    @Test func aModeratorRedactsKicksBansAndUnbans() async throws {
        let server = try await SynapseTestServer.shared()
        let owner = try await server.newClient("owner")
        let bot = try await server.newClient("moderator")
        let spammer = try await server.newClient("spammer")
        let roomID = try await room(owner: owner, bot: bot, botLevel: 100, others: [spammer])
        let spam = try await spammer.sendText("free money", to: roomID, transactionID: "spam-1")

        try await bot.redact(spam, in: roomID, reason: "banned word", transactionID: "redact-1")
        let watcher = SyncWatcher(owner)
        let redaction = try await watcher.until("the redaction") { seen in
            seen.events(in: roomID, type: "m.room.redaction").first { $0.redacts == spam }
        }
        let botID = try bot.currentUser()
        #expect(redaction.sender == botID.rawValue)

        let spammerID = try spammer.currentUser()
        try await bot.kick(spammerID, from: roomID, reason: "third strike")
        #expect(try await membership(of: spammerID, in: roomID, by: bot) == "leave")
        try await spammer.join(.id(roomID))
        try await bot.ban(spammerID, from: roomID, reason: "fourth strike")
        #expect(try await membership(of: spammerID, in: roomID, by: bot) == "ban")
        let refused = await #expect(throws: IMClientError.self) { try await spammer.join(.id(roomID)) }
        #expect(refused?.apiCode == .forbidden)
        try await bot.unban(spammerID, from: roomID)
        #expect(try await membership(of: spammerID, in: roomID, by: bot) == "leave")
        try await spammer.join(.id(roomID))
    }

    @Test func muteIsAPowerLevelBelowWhatMessagesNeed() async throws {
        let server = try await SynapseTestServer.shared()
        let owner = try await server.newClient("owner")
        let bot = try await server.newClient("moderator")
        let member = try await server.newClient("member")
        let roomID = try await room(owner: owner, bot: bot, botLevel: 100, others: [member])
        let memberID = try member.currentUser()

        let had = try await bot.mute(memberID, in: roomID)
        #expect(had == 0)
        let power = try await bot.power(in: roomID)
        #expect(!power.maySendMessages(memberID.rawValue))
        let refused = await #expect(throws: IMClientError.self) {
            try await member.sendText("let me speak", to: roomID, transactionID: "muted-1")
        }
        #expect(refused?.apiCode == .forbidden)

        try await bot.unmute(memberID, in: roomID)
        #expect(try await bot.power(in: roomID).levels.users?[memberID.rawValue] == nil)
        try await member.sendText("thanks", to: roomID, transactionID: "unmuted-1")
    }

    @Test func roomVersion12CreatorsOutrankEveryLevelAndAreNeverListed() async throws {
        let server = try await SynapseTestServer.shared()
        let creator = try await server.newClient("creator")
        let bot = try await server.newClient("moderator")
        let roomID = try await creator.createRoom(NewRoom(invite: [try bot.currentUser()], roomVersion: "12"))
        try await bot.join(.id(roomID))
        let creatorID = try creator.currentUser()
        let botID = try bot.currentUser()

        let power = try await bot.power(in: roomID)
        #expect(power.roomVersion == "12")
        #expect(power.creatorsOutrankAll)
        #expect(power.creators == [creatorID.rawValue])
        #expect(power.levels.users?[creatorID.rawValue] == nil)
        #expect(power.level(of: creatorID.rawValue) == Int64.max)
        #expect(power.level(of: botID.rawValue) == 0)

        // Giving the creator a level is refused here, before the homeserver is asked.
        let refused = await #expect(throws: IMClientError.self) {
            try await creator.setPowerLevel(50, for: creatorID, in: roomID)
        }
        #expect(refused?.code == .invalidArgument)
        // The creator can still promote the bot, and then the bot can mute others but not the creator.
        try await creator.setPowerLevel(50, for: botID, in: roomID)
        #expect(try await bot.power(in: roomID).level(of: botID.rawValue) == 50)
        await #expect(throws: IMClientError.self) { try await bot.mute(creatorID, in: roomID) }
    }

    @Test func beforeRoomVersion12ACreatorIsListedAtLevel100LikeAnyOtherUser() async throws {
        let server = try await SynapseTestServer.shared()
        let creator = try await server.newClient("creator")
        let bot = try await server.newClient("moderator")
        let roomID = try await creator.createRoom(NewRoom(invite: [try bot.currentUser()], roomVersion: "10"))
        try await bot.join(.id(roomID))
        let creatorID = try creator.currentUser()

        let power = try await bot.power(in: roomID)
        #expect(power.roomVersion == "10")
        #expect(!power.creatorsOutrankAll)
        #expect(power.levels.users?[creatorID.rawValue] == 100)
        #expect(power.level(of: creatorID.rawValue) == 100)
    }

    @Test func aDirectChatIsInvitedAsOneAndListedInAccountData() async throws {
        let server = try await SynapseTestServer.shared()
        let bot = try await server.newClient("bot")
        let alice = try await server.newClient("alice")
        let aliceID = try alice.currentUser()
        #expect(try await bot.directRooms().isEmpty)
        let chat = try await bot.createDirectRoom(with: aliceID)
        #expect(try await bot.directRooms() == [chat: aliceID.rawValue])
        // Listed once, however often it is added.
        try await bot.addDirectRoom(chat, with: aliceID)
        #expect(try await bot.accountData("m.direct") == .object([aliceID.rawValue: .array([.string(chat)])]))
        let invite = try await SyncWatcher(alice).until("the invitation") { seen in seen.invites[chat] }
        #expect(invite.isDirect(for: aliceID))
        #expect(invite.inviter(of: aliceID) == (try bot.currentUser()).rawValue)
    }

    @Test func aKnockIsAMembershipTheRoomsMembersAnswerByInviting() async throws {
        let server = try await SynapseTestServer.shared()
        let owner = try await server.newClient("owner")
        let knocker = try await server.newClient("knocker")
        let knockerID = try knocker.currentUser()
        let roomID = try await owner.createRoom(NewRoom(preset: "private_chat"))
        try await owner.setState(of: roomID, type: "m.room.join_rules", content: .object(["join_rule": .string("knock")]))
        #expect(try await knocker.knock(.id(roomID), reason: "let me in") == roomID)
        #expect(try await owner.members(of: roomID, membership: "knock").map(\.stateKey) == [knockerID.rawValue])
        try await owner.invite(knockerID, to: roomID)
        #expect(try await owner.members(of: roomID, membership: "knock").isEmpty)
        try await knocker.join(.id(roomID))
        #expect(try await owner.members(of: roomID, membership: "join").contains { $0.stateKey == knockerID.rawValue })
        // The feed tells a join that answers an invitation by the membership before it.
        let join = try await SyncWatcher(owner).until("the knocker's join") { seen in
            seen.events(in: roomID, type: "m.room.member").first { $0.stateKey == knockerID.rawValue && $0.membership == "join" }
        }
        #expect(join.previousMembership == "invite")

        // A knock turned away is a kick of it: the knocker is out, and may knock again.
        let turnedAway = try await server.newClient("knocker")
        let turnedAwayID = try turnedAway.currentUser()
        try await turnedAway.knock(.id(roomID))
        try await owner.kick(turnedAwayID, from: roomID, reason: "join request denied")
        #expect(try await owner.members(of: roomID, membership: "leave").contains { $0.stateKey == turnedAwayID.rawValue })
        #expect(try await owner.members(of: roomID, membership: "knock").isEmpty)
    }

    @Test func theProfileHasADisplayNameAndAnUploadedAvatar() async throws {
        let server = try await SynapseTestServer.shared()
        let bot = try await server.newClient("bot")
        try await bot.setDisplayName("Moderator")
        #expect(try await bot.displayName() == "Moderator")
        // A 1x1 PNG.
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
                        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
                        0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x00, 0x01, 0x00, 0x00,
                        0x05, 0x00, 0x01, 0x0D, 0x0A, 0x2D, 0xB4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE,
                        0x42, 0x60, 0x82])
        let url = try await bot.upload(png, contentType: "image/png")
        #expect(url.hasPrefix("mxc://"))
        try await bot.setAvatarURL(url)
    }

    @Test func roomAddressesParseAsMatrixWritesThem() throws {
        #expect(MatrixRoomAddress("!abc:example.org") == .id("!abc:example.org"))
        #expect(MatrixRoomAddress("!31hneApxJ_1o-63DmFrpeqnkFfWppnzWso1JvH3ogLM") != nil)  // version 12: no server
        #expect(MatrixRoomAddress("#help:example.org") == .alias("#help:example.org"))
        #expect(MatrixRoomAddress("#help") == nil)
        #expect(MatrixRoomAddress("group:help") == nil)
        #expect(MatrixUserID("@alice:example.org")?.localpart == "alice")
        #expect(MatrixUserID("@alice:example.org")?.server == "example.org")
        #expect(MatrixUserID("alice") == nil)
        #expect(MatrixUserID("@alice") == nil)
        #expect(MatrixUserID("@al ice:example.org") == nil)
    }

    @Test func resolvesAnAliasToItsRoom() async throws {
        let server = try await SynapseTestServer.shared()
        let owner = try await server.newClient("owner")
        let bot = try await server.newClient("bot")
        let alias = server.newUsername("helpdesk")
        let roomID = try await owner.createRoom(NewRoom(preset: "public_chat", aliasLocalpart: alias))
        let address = try #require(MatrixRoomAddress("#\(alias):\(server.serverName)"))
        #expect(try await bot.roomID(of: address) == roomID)
        #expect(try await bot.join(address) == roomID)
    }

    private func membership(of user: MatrixUserID, in roomID: String, by client: MatrixClient) async throws -> String? {
        try await client.stateContent(of: roomID, type: "m.room.member", stateKey: user.rawValue)["membership"]?.string
    }
}
