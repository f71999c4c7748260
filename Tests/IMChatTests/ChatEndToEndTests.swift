import Foundation
import IMClient

#if canImport(Glibc)
import Glibc
#endif
import IMProtocol
import TestSupport
import Testing

/// `switchboard chat` in a real terminal (tmux) against a real server on 127.0.0.1.
///
/// No ZWJ sequences here: tmux 3.3a measures them as the sum of their parts, unlike the
/// terminals the width table follows (the golden screens cover them).
@Suite struct ChatEndToEndTests {
    /// The `switchboard` executable of this build (`swift build` makes it next to the tests).
    static var binary: String? {
        if let path = ProcessInfo.processInfo.environment["SWITCHBOARD_BINARY"] { return path }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return ["debug", "release"].map { root.appendingPathComponent(".build/\($0)/switchboard").path }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    @Test func registerLogInCreateAGroupChatLivePageBackAndLogOut() async throws {
        let binary = try #require(Self.binary, "build the switchboard executable first (swift build)")
        try await withServer { server in
            let folder = TestServer.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let bob = IMClient(serverURL: server.baseURL, transport: TestClient.sharedTransport)
            try await bob.register(username: "bob", password: "bob-password")
            let command = "SWITCHBOARD_HOME='\(folder)/home' '\(binary)' chat --server \(server.baseURL); echo \"chat exited $?\"; sleep 600"
            let tmux = try await TmuxSession.start(command, folder: folder)
            do {
                try await Self.script(tmux, server: server, bob: bob)
                await tmux.kill()
            } catch {
                await tmux.kill()
                throw error
            }
        }
    }

    static func script(_ tmux: TmuxSession, server: TestServer, bob: IMClient) async throws {
        // Register: the new account is logged in at once.
        try await tmux.wait(for: "[ Log in ]")
        try await tmux.press("C-r")
        try await tmux.wait(for: "Create an account")
        try await tmux.type("alice")
        try await tmux.press("Tab")
        try await tmux.type("alice-password")
        try await tmux.press("Tab")
        try await tmux.type("alice-password")
        try await tmux.press("Enter")
        try await tmux.wait(for: "No conversations yet.")

        // Log out: the Login screen remembers the username; log in again.
        try await logOut(tmux)
        try await tmux.type("alice-password")
        try await tmux.press("Enter")
        try await tmux.wait(for: "No conversations yet.")

        // Create a group from Contacts' + menu: its dialogue opens.
        try await tmux.press("2")
        try await tmux.wait(for: "Groups (0)")
        try await tmux.press("+")
        try await tmux.wait(for: "Create a group")
        try await tmux.press("g")
        try await tmux.wait(for: "Create a group")
        try await tmux.type("ops")
        try await tmux.press("Enter")
        try await tmux.wait(for: "alice created the group")

        // A group is invite-only: alice (on another client) invites bob, who joins and
        // speaks; both show up live and alice's message reaches bob.
        let alicesLaptop = IMClient(serverURL: server.baseURL, transport: TestClient.sharedTransport)
        try await alicesLaptop.login(username: "alice", password: "alice-password")
        _ = try await alicesLaptop.inviteToGroup("ops", user: "bob")
        try await bob.joinGroup("ops")
        try await tmux.wait(for: "bob joined the group")
        try await tmux.type("hello from alice, 你好")
        try await tmux.press("Enter")
        try await tmux.wait(for: "alice      hello from alice, 你好")
        let hello = try await eventuallyFound("bob receiving alice's message") {
            try await bob.history(.group("ops")).messages.first { $0.text == "hello from alice, 你好" }
        }
        let hi = try await bob.send("hi alice, bob here 👍", to: .group("ops"))
        try await tmux.wait(for: "bob        hi alice, bob here 👍")

        // bob edits his message: alice sees the new text, marked.
        try await bob.editMessage(hi.id, in: .group("ops"), text: "hi alice, bob here (on the phone) 👍")
        try await tmux.wait(for: "bob        hi alice, bob here (on the phone) 👍 (edited)")

        // alice deletes hers: Tab selects the newest (bob's, which she as the owner may
        // delete too), ↑ hers (the only one she may edit), d, y. It is gone for bob too.
        try await tmux.press("Tab")
        try await tmux.wait(for: "d delete")
        try await tmux.press("Up")
        try await tmux.wait(for: "e edit")
        try await tmux.press("d")
        try await tmux.wait(for: "Delete this message for everyone?")
        try await tmux.press("y")
        let afterDelete = try await tmux.wait(for: "alice      (message deleted)")
        #expect(!afterDelete.contains("hello from alice"))
        let gone = try await eventuallyFound("the deletion in bob's history") {
            try await bob.history(.group("ops")).messages.first { $0.id == hello.id && $0.deletedAt != nil }
        }
        #expect(gone.text.isEmpty)
        try await tmux.press("Escape")  // back to typing
        try await tmux.wait(for: "Enter send")

        // 200 messages from bob in a direct conversation: counted unread on Sessions,
        // read on another client of alice's (so the count clears here too), then paged
        // back from the server.
        // (Each Esc is waited out: Esc and a key right after it read as Alt and that key.)
        try await tmux.press("Escape")
        try await tmux.wait(for: "[2 Contacts]")

        // carol invites alice into her group: the invitation shows first in Contacts and
        // Enter joins it.
        let carol = IMClient(serverURL: server.baseURL, transport: TestClient.sharedTransport)
        try await carol.register(username: "carol", password: "carol-password")
        try await carol.createGroup(name: "design")
        try await carol.inviteToGroup("design", user: "alice")
        try await tmux.wait(for: "#design invited by carol")
        try await tmux.press("Enter")
        try await tmux.wait(for: "alice joined the group")

        // carol mutes her, then removes her: the input line says so, live.
        try await carol.moderate(group: "design", .mute, user: "alice")
        try await tmux.wait(for: "> You are muted here until a moderator unmutes you.")
        try await carol.moderate(group: "design", .kick, user: "alice", reason: "wrong room")
        try await tmux.wait(for: "> You were removed from this group by carol: wrong room. Esc goes back.")
        try await tmux.press("Escape")
        try await tmux.wait(for: "the group gone from alice's") { $0.contains("[2 Contacts]") && $0.contains("Groups (1)") }
        try await tmux.press("1")
        for index in 1...200 { try await bob.send(String(format: "history %03d", index), to: .user("alice")) }
        try await tmux.wait(for: "200 unread") { $0.contains("[1 Sessions (200)]") && $0.contains("bob: history 200") }
        let phone = IMClient(serverURL: server.baseURL, transport: TestClient.sharedTransport)
        try await phone.login(username: "alice", password: "alice-password")
        try await phone.markRead(.user("bob"), seq: 200)
        try await tmux.wait(for: "no unread count") { $0.contains("[1 Sessions]") && $0.contains("bob: history 200") }
        try await tmux.press("Enter")
        try await tmux.wait(for: "bob        history 200")
        var screen = try await tmux.screen()
        var presses = 0
        while !(screen.contains("beginning of the conversation") && screen.contains("history 001")) {
            presses += 1
            guard presses < 100 else { throw TestFailure("paged up 100 times without reaching the start:\n\(screen)") }
            let before = screen
            try await tmux.press("PPage")
            screen = try await tmux.wait(for: "the screen to scroll") { $0 != before }
            if screen.contains("loading older…") {
                screen = try await tmux.wait(for: "the older page") { !$0.contains("loading older…") }
            }
        }
        #expect(presses >= 11)  // 200 lines at 19 a page: the history was read a page at a time

        // Log out again: the Login screen shows the remembered username; Ctrl-C restores the terminal.
        try await tmux.press("Escape")
        try await tmux.wait(for: "[1 Sessions]")
        try await logOut(tmux)
        try await tmux.press("C-c")
        try await tmux.wait(for: "Quit switchboard chat?")
        try await tmux.press("C-c")
        let after = try await tmux.wait(for: "chat exited 0")
        #expect(!after.contains("Switchboard · Log in"))
    }

    /// How the terminal is left: the shell runs `stty -a` after the client, which shows
    /// `icanon` and `echo` only when raw mode was undone.
    static func start(_ binary: String, _ server: TestServer, folder: String) async throws -> TmuxSession {
        let command = "SWITCHBOARD_HOME='\(folder)/home' SWIFT_BACKTRACE=enable=no '\(binary)' chat --server \(server.baseURL);"
            + " echo \"chat exited $?\"; stty -a | tr ' ;' '\\n\\n' | grep -x -e icanon -e echo | tr '\\n' ' '; echo; sleep 600"
        return try await TmuxSession.start(command, folder: folder)
    }

    @Test(arguments: [(SIGTERM, "0"), (SIGSEGV, "139"), (SIGABRT, "134")])
    func theTerminalIsRestoredWhenTheClientIsStoppedOrCrashes(_ signal: Int32, _ status: String) async throws {
        let binary = try #require(Self.binary, "build the switchboard executable first (swift build)")
        try await withServer { server in
            let folder = TestServer.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let tmux = try await Self.start(binary, server, folder: folder)
            do {
                try await tmux.wait(for: "[ Log in ]")
                // A resize redraws at the new size (SIGWINCH).
                try await tmux.resize(columns: 100, rows: 30)
                try await tmux.wait(for: "the title bar at 100 columns") { screen in
                    screen.split(separator: "\n").first.map { $0.hasSuffix("http://127.0.0.1:\(server.app.port)") && $0.count > 90 } ?? false
                }
                kill(try await tmux.programPID(), signal)
                let after = try await tmux.wait(for: "chat exited \(status)")
                try await tmux.wait(for: "icanon echo")
                #expect(!after.contains("[ Log in ]"))  // the alternate screen is gone
                await tmux.kill()
            } catch {
                await tmux.kill()
                throw error
            }
        }
    }

    @Test func aLoginOfTheSameAccountOnTheSameDeviceKicksTheClientOutWithAWayBack() async throws {
        let binary = try #require(Self.binary, "build the switchboard executable first (swift build)")
        try await withServer { server in
            let folder = TestServer.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            try await IMClient(serverURL: server.baseURL, transport: TestClient.sharedTransport)
                .register(username: "alice", password: "alice-password")
            let tmux = try await Self.start(binary, server, folder: folder)
            do {
                try await tmux.wait(for: "[ Log in ]")
                try await tmux.type("alice")
                try await tmux.press("Tab")
                try await tmux.type("alice-password")
                try await tmux.press("Enter")
                try await tmux.wait(for: "No conversations yet.")
                try await server.awaitParkedPolls(1)
                // The client's device is its home's, chat-<id>@<host> (the id is kept in the
                // home): another login under it ends the client's, as the seed's kick-out does.
                let id = try String(contentsOfFile: folder + "/home/device", encoding: .utf8)
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                let device = String("chat-\(id)@\(ProcessInfo.processInfo.hostName)".prefix(60))
                let other = IMClient(serverURL: server.baseURL, transport: TestClient.sharedTransport, device: device)
                try await other.login(username: "alice", password: "alice-password")
                try await tmux.wait(for: "Logged in elsewhere")
                try await tmux.press("Enter")
                try await tmux.wait(for: "Username [alice ")
                await tmux.kill()
            } catch {
                await tmux.kill()
                throw error
            }
        }
    }

    /// Profile → o → y, then the Login screen with alice filled in.
    static func logOut(_ tmux: TmuxSession) async throws {
        try await tmux.press("3")
        try await tmux.wait(for: "log out")
        try await tmux.press("o")
        try await tmux.wait(for: "Log out of alice?")
        try await tmux.press("y")
        try await tmux.wait(for: "Username [alice ")
        // The profile saved at login gives the Login screen its caption and avatar.
        try await tmux.wait(for: "alice (@alice), welcome back")
    }

    /// What `find` finds on the server once it finds something (TestSupport's `eventually`).
    static func eventuallyFound<T>(_ what: String, _ find: () async throws -> T?) async throws -> T {
        var found: T?
        try await eventually(what) {
            found = try await find()
            return found != nil
        }
        guard let found else { throw TestFailure("never saw \(what)") }
        return found
    }
}
