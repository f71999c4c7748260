import Foundation
import IMClient
import IMProtocol
import IMServer
import Testing
import TestSupport

/// Accounts and profiles end to end against a real server.
@Suite("IMClient accounts against a server")
struct AccountIntegrationTests {
    @Test func registerLoginProfileAndLogout() async throws {
        try await withServer { server in
            let alice = makeClient(server, device: "laptop")
            let created = try await alice.register(username: "Alice", password: password, nickname: "Al")
            let again = makeClient(server)

            let login = try await again.login(username: "alice", password: password)
            let me = try await again.me()
            let updated = try await again.updateProfile(
                ProfileUpdate(nickname: "Ally", signature: "hi there", attrs: ["team": "ops"]))
            try await again.logout()

            #expect(created.user.username == "alice")
            #expect(created.user.nickname == "Al")
            #expect(created.expiresAt != nil)
            #expect(login.user.id == created.user.id)
            #expect(me.username == "alice")
            #expect(updated.nickname == "Ally")
            #expect(updated.signature == "hi there")
            #expect(updated.attrs == ["team": "ops"])
            #expect(again.token == nil)
            #expect(try await alice.me().nickname == "Ally")
        }
    }

    @Test func aBotAccountsLoginDoesNotExpire() async throws {
        try await withServer { server in
            try await server.createAccount("helpdesk", password: password, bot: true)
            let bot = makeClient(server)

            let auth = try await bot.login(username: "helpdesk", password: password)

            #expect(auth.user.isBot)
            #expect(auth.expiresAt == nil)
        }
    }

    @Test func registeringABotIsRefusedWithTheCommandToRun() async throws {
        try await withServer { server in
            let error = await #expect(throws: IMClientError.self) {
                try await makeClient(server).register(username: "helpdesk", password: password, bot: true)
            }
            #expect(error?.code == .api(.forbidden))
            #expect(error?.message.contains("switchboard user add --bot helpdesk") == true)
        }
    }

    @Test func sessionsAreListedAndOneCanBeEndedFromAnother() async throws {
        try await withServer { server in
            let laptop = try await registered(server, "alice", device: "laptop")
            let phone = makeClient(server, device: "phone")
            try await phone.login(username: "alice", password: password, device: "phone")

            let sessions = try await laptop.sessions()
            let phoneSession = try #require(sessions.first { $0.device == "phone" })
            try await laptop.endSession(id: phoneSession.id)
            let ended = await #expect(throws: IMClientError.self) { try await phone.me() }

            #expect(Set(sessions.map(\.device)) == ["laptop", "phone"])
            #expect(sessions.filter(\.current).map(\.device) == ["laptop"])
            #expect(ended?.code == .api(.unauthorized))
            #expect(try await laptop.sessions().map(\.device) == ["laptop"])
        }
    }

    @Test func aLoggedOutTokenIsRefused() async throws {
        try await withServer { server in
            let alice = try await registered(server, "alice")
            let stale = makeClient(server, token: alice.token)
            try await alice.logout()

            let error = await #expect(throws: IMClientError.self) { try await stale.me() }

            #expect(error?.code == .api(.unauthorized))
        }
    }

    @Test func wrongPasswordAndTakenNameSayWhatHappened() async throws {
        try await withServer { server in
            _ = try await registered(server, "alice")
            let other = makeClient(server)

            let wrong = await #expect(throws: IMClientError.self) {
                try await other.login(username: "alice", password: "not the password")
            }
            let taken = await #expect(throws: IMClientError.self) {
                try await other.register(username: "ALICE", password: password)
            }

            #expect(wrong?.code == .api(.unauthorized))
            #expect(wrong?.message.hasPrefix("wrong password for alice") == true)
            #expect(taken?.code == .api(.conflict))
            #expect(taken?.message.contains("'alice' is taken") == true)
            #expect(other.token == nil)
        }
    }

    @Test func aPasswordChangeEndsOtherLoginsAndKeepsThisOne() async throws {
        try await withServer { server in
            let alice = try await registered(server, "alice")
            let elsewhere = makeClient(server)
            try await elsewhere.login(username: "alice", password: password)

            try await alice.changePassword(old: password, new: "a brand new password")

            #expect(try await alice.me().username == "alice")
            let ended = await #expect(throws: IMClientError.self) { try await elsewhere.me() }
            #expect(ended?.code == .api(.unauthorized))
            #expect(ended?.message == "the password was changed: log in again")
            let fresh = makeClient(server)
            try await fresh.login(username: "alice", password: "a brand new password")
            let wrongOld = await #expect(throws: IMClientError.self) {
                try await alice.changePassword(old: password, new: "another new password")
            }
            #expect(wrongOld?.code == .api(.forbidden))
        }
    }

    @Test func anUploadedAvatarIsDownloadedOnceAndServedFromTheCache() async throws {
        try await withServer { server in
            let alice = try await registered(server, "alice")
            let bob = try await registered(server, "bob")
            let cache = AvatarCache(directory: server.directory + "/avatar-cache")

            let upload = try await alice.uploadAvatar(DefaultAvatar.png)
            let seenByBob = try await bob.user(named: "alice")
            let image = try await bob.avatar(of: seenByBob, cache: cache)
            let noAvatar = try await alice.avatar(of: try await alice.user(named: "bob"), cache: cache)

            #expect(upload.user.avatarURL == upload.media.url)
            #expect(upload.media.contentType == "image/png")
            #expect(seenByBob.avatarURL.hasPrefix("/v1/media/"))
            #expect(image == DefaultAvatar.png)
            #expect(cache.data(for: server.baseURL + seenByBob.avatarURL) == DefaultAvatar.png)
            #expect(noAvatar == DefaultAvatar.png)
        }
    }

    @Test func somethingThatIsNotAnImageIsRefusedAsAvatar() async throws {
        try await withServer { server in
            let alice = try await registered(server, "alice")

            let error = await #expect(throws: IMClientError.self) { try await alice.uploadAvatar(Data("hello".utf8)) }

            #expect(error?.code == .api(.unsupportedMediaType))
        }
    }

    @Test func aStoppedServerIsReportedAsNotReachableWithItsURL() async throws {
        let server = try await TestServer.start()
        await server.stop()
        server.removeData()
        let client = makeClient(server)

        let error = await #expect(throws: IMClientError.self) {
            try await client.login(username: "alice", password: password)
        }

        #expect(error?.code == .unreachable)
        #expect(error?.message == "server not reachable at \(server.baseURL) (connection refused)")
    }

    @Test func adminCallsListCreateAndResetAccounts() async throws {
        try await withServer { server in
            try await server.createAccount("root", password: password, admin: true)
            let root = makeClient(server)
            try await root.login(username: "root", password: password)
            let alice = try await registered(server, "alice")

            let created = try await root.adminCreateUser(
                AdminCreateUser(username: "carol", password: password, nickname: "Carol", bot: true))
            let firstPage = try await root.adminUsers(limit: 2)
            let secondPage = try await root.adminUsers(after: firstPage.next, limit: 2)
            let forbidden = await #expect(throws: IMClientError.self) { try await alice.adminUsers() }
            try await root.adminSetPassword(username: "alice", password: "reset by admin")
            let ended = await #expect(throws: IMClientError.self) { try await alice.me() }
            let relogin = makeClient(server)
            try await relogin.login(username: "alice", password: "reset by admin")

            #expect(created.user.username == "carol")
            #expect(created.user.isBot)
            #expect(firstPage.users.map(\.user.username) == ["alice", "carol"])
            #expect(secondPage.users.map(\.user.username) == ["root"])
            #expect(secondPage.users.first?.admin == true)
            #expect(forbidden?.code == .api(.forbidden))
            #expect(ended?.code == .api(.unauthorized))
        }
    }
}
