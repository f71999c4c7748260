import Foundation
import IMClient
import IMProtocol
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@testable import IMChat

/// Issue 27, item 5, against a real server on 127.0.0.1: the login is kept in the home
/// (0600) and ended by Log out; each home is its own device, each terminal of a home its
/// own login; the password is changed from Profile and this login goes on.
@Suite struct LoginsAndDevicesTests {
    static func runner(_ server: TestServer, home: String, slot: String = "chat", device: String = "chat-test@host")
        -> ChatEffectRunner
    {
        ChatEffectRunner(configuration: ChatConfiguration(
            server: server.baseURL, transport: TestClient.sharedTransport, profileStore: ProfileStore(root: home),
            device: device, loginSlot: slot))
    }

    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }

    @Test func theLoginIsKeptPrivatelyResumedWithoutAPasswordAndEndedByLogOut() async throws {
        try await withServer { server in
            let home = TestServer.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: home) }
            let first = Self.runner(server, home: home)
            guard case .loggedIn? = await first.perform(.register(username: "alice", password: "alice-password")) else {
                throw TestFailure("no login")
            }
            let kept = home + "/users/alice/chat-login.json"
            #expect(Self.mode(kept) == 0o600)
            #expect(ProfileStore(root: home).login(of: "alice", slot: "chat")?.device == "chat-test@host")

            // The next start: the Login screen is skipped.
            let next = Self.runner(server, home: home)
            guard case .lastUser("alice", _, let resumable)? = await next.perform(.loadLastUser) else { throw TestFailure("no last user") }
            #expect(resumable)
            var model = Fixture.model()
            _ = model.handle(.result(.lastUser("alice", nil, resumable: true)))
            #expect(model.login.phase == .waiting)
            guard case .loggedIn(let user)? = await next.perform(.resumeLogin("alice")) else { throw TestFailure("not resumed") }
            #expect(user.username == "alice")
            #expect(try await next.client?.me().username == "alice")

            // Log out ends it on the server and here.
            let token = try #require(next.client?.token)
            _ = await next.perform(.logout)
            #expect(!FileManager.default.fileExists(atPath: kept))
            let stale = IMClient(serverURL: server.baseURL, transport: TestClient.sharedTransport, token: token)
            await #expect(throws: IMClientError.self) { try await stale.me() }
            guard case .lastUser("alice", _, let again)? = await Self.runner(server, home: home).perform(.loadLastUser) else {
                throw TestFailure("no last user")
            }
            #expect(!again)
        }
    }

    @Test func aKeptLoginThatTheServerEndedIsForgottenAndTheLoginScreenSaysSo() async throws {
        try await withServer { server in
            let home = TestServer.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: home) }
            let first = Self.runner(server, home: home)
            _ = await first.perform(.register(username: "alice", password: "alice-password"))
            // Another client changes the password: every login ends.
            let other = IMClient(serverURL: server.baseURL, transport: TestClient.sharedTransport)
            try await other.login(username: "alice", password: "alice-password")
            try await other.changePassword(old: "alice-password", new: "new-password-1")
            guard case .loginFailed(let reason)? = await Self.runner(server, home: home).perform(.resumeLogin("alice")) else {
                throw TestFailure("an ended login was resumed")
            }
            #expect(reason.contains("has ended"))
            #expect(ProfileStore(root: home).login(of: "alice", slot: "chat") == nil)
        }
    }

    @Test func eachHomeIsItsOwnDeviceAndEachTerminalOfAHomeItsOwnSlot() throws {
        let home = TestServer.temporaryDirectory()
        let other = TestServer.temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(atPath: home)
            try? FileManager.default.removeItem(atPath: other)
        }
        let store = ProfileStore(root: home)
        let device = try store.deviceName(prefix: "chat")
        #expect(device.hasPrefix("chat-") && device.contains("@"))
        #expect(try store.deviceName(prefix: "chat") == device)  // kept
        #expect(try ProfileStore(root: other).deviceName(prefix: "chat") != device)  // another home
        #expect(Self.mode(home + "/device") == 0o600)
        let first = try store.claimSlot("chat")
        let second = try store.claimSlot("chat")
        #expect(first.number == 1 && second.number == 2)
        withExtendedLifetime(first) {}
        _ = consume second
        // The second terminal closed: its place is free again.
        #expect(try store.claimSlot("chat").number == 2)
    }

    @Test func twoDevicesOfOneAccountStayLoggedInTogetherAndTheSameDeviceEndsTheOlder() async throws {
        try await withServer { server in
            let home = TestServer.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: home) }
            let first = Self.runner(server, home: home, device: "chat-a@host")
            _ = await first.perform(.register(username: "alice", password: "alice-password"))
            let second = Self.runner(server, home: home, slot: "chat-2", device: "chat-a@host-2")
            guard case .loggedIn? = await second.perform(.login(username: "alice", password: "alice-password")) else {
                throw TestFailure("the second terminal could not log in")
            }
            #expect(try await first.client?.me().username == "alice")  // still logged in
            let third = Self.runner(server, home: home, slot: "chat-2", device: "chat-a@host-2")
            _ = await third.perform(.login(username: "alice", password: "alice-password"))
            await #expect(throws: IMClientError.self) { try await second.client?.me() }  // same device: kicked out
            #expect(try await first.client?.me().username == "alice")
        }
    }

    @Test func profileChangesThePasswordAndThisLoginGoesOn() async throws {
        var model = Fixture.loggedIn()
        model.press(.character("3"), .character("p"))
        #expect(model.profile.password != nil)
        model.type("old-password")
        model.press(.enter)
        model.type("short")
        model.press(.enter)
        model.type("short")
        #expect(model.press(.enter) == [])
        #expect(model.profile.note?.contains("at least 8 characters") == true)
        #expect(model.profile.password?.focus == 1)  // back on the new password
        model.press(.control("u"))
        model.type("a-new-password")
        model.press(.tab)
        model.press(.control("u"))
        model.type("a-new-password")
        #expect(model.press(.enter) == [.changePassword(old: "old-password", new: "a-new-password")])
        _ = model.handle(.result(.passwordChanged(Fixture.alice)))
        #expect(model.profile.password == nil)
        #expect(model.screenText.contains("Password changed"))

        try await withServer { server in
            let home = TestServer.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: home) }
            let runner = Self.runner(server, home: home)
            _ = await runner.perform(.register(username: "alice", password: "alice-password"))
            let elsewhere = IMClient(serverURL: server.baseURL, transport: TestClient.sharedTransport)
            try await elsewhere.login(username: "alice", password: "alice-password")
            guard case .passwordChanged? = await runner.perform(.changePassword(old: "alice-password", new: "a-new-password"))
            else { throw TestFailure("not changed") }
            #expect(try await runner.client?.me().username == "alice")
            await #expect(throws: IMClientError.self) { try await elsewhere.me() }
            // The new login is the one kept.
            #expect(ProfileStore(root: home).login(of: "alice", slot: "chat")?.token == runner.client?.token)
            guard case .failed(let reason)? = await runner.perform(.changePassword(old: "wrong-password", new: "another-one1"))
            else { throw TestFailure("a wrong password was taken") }
            #expect(reason.hasPrefix("the password is unchanged"))
        }
    }
}
