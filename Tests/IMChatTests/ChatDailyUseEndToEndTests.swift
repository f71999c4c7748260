import Foundation
import IMClient
import IMProtocol
import TestSupport
import Testing

/// Issue 27 in a real terminal: `switchboard chat` in tmux against a real server on
/// 127.0.0.1, typed into with `send-keys` as a person would, the way a client kept open
/// all day is used: emoji and accents typed (not pasted), Alt-keys, a server that goes
/// away and comes back, a second terminal of the same account, a conversation read
/// part-way.
@Suite struct ChatDailyUseEndToEndTests {
    static let password = "alice-password"

    /// The family (ZWJ), a red heart (VS16) and "café" with a combining acute accent, as
    /// an emoji picker or an IME writes them: unbracketed.
    static let typed = "family 👨\u{200D}👩\u{200D}👧 love ❤\u{FE0F} cafe\u{301}"

    @Test func typedTextAltKeysQueuedSendsASecondTerminalAndCountsAgree() async throws {
        let binary = try #require(ChatEndToEndTests.binary, "build the switchboard executable first (swift build)")
        let folder = TestServer.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var server = try await TestServer.start()
        let port = server.app.port
        var sessions: [TmuxSession] = []
        do {
            let bob = IMClient(serverURL: server.baseURL, transport: TestClient.sharedTransport)
            try await bob.register(username: "bob", password: "bob-password")
            try await IMClient(serverURL: server.baseURL, transport: TestClient.sharedTransport)
                .register(username: "alice", password: Self.password)
            let command = "SWITCHBOARD_HOME='\(folder)/home' '\(binary)' chat --server \(server.baseURL); echo \"chat exited $?\"; sleep 600"
            let first = try await TmuxSession.start(command, folder: folder)
            sessions.append(first)

            // Log in once; bob's message opens a direct conversation.
            try await first.wait(for: "[ Log in ]")
            try await first.type("alice")
            try await first.press("Tab")
            try await first.type(Self.password)
            try await first.press("Enter")
            try await first.wait(for: "No conversations yet.")
            try await bob.send("hello alice", to: .user("alice"))
            try await first.wait(for: "bob: hello alice")
            try await first.press("Enter")
            try await first.wait(for: "bob        hello alice")

            // 1. Text typed is text sent: the joiners, the variation selector and the
            // combining accent arrive at bob's as typed.
            try await first.type(Self.typed)
            try await first.press("Enter")
            let arrived = try await ChatEndToEndTests.eventuallyFound("alice's typed message at bob's") {
                try await bob.history(.user("alice")).messages.first { $0.sender == "alice" }
            }
            #expect(Array(arrived.text.unicodeScalars) == Array(Self.typed.unicodeScalars))
            #expect(!arrived.text.unicodeScalars.contains("\u{25CC}"))

            // 2. Alt-b in a direct chat moves back a word in the draft: it neither goes
            // back nor blocks bob, whose next message still arrives.
            try await first.type("a draft")
            try await first.press("M-b")
            try await first.press("M-x")
            try await first.press("M-l")
            try await bob.send("still here?", to: .user("alice"))
            let afterAlt = try await first.wait(for: "bob        still here?")
            #expect(afterAlt.contains("> a draft") && !afterAlt.contains("blocked") && !afterAlt.contains("[2 Contacts]"))
            #expect(try await bob.history(.user("alice")).messages.first?.text == "still here?")
            try await first.press("C-e")
            try await first.press("C-u")
            // Those keys read before the server goes: one that arrives while "Connection
            // lost" shows would put it aside, as any key does there.
            try await first.wait(for: "the input emptied") { !$0.contains("a draft") }

            // 3. The server goes away: a message typed then waits, queued, and arrives once
            // when the server is back (on the same port and data).
            await server.stop()
            try await first.wait(for: "Connection lost")
            try await first.press("Escape")
            try await first.wait(for: "the lost connection put aside") { $0.contains("○ offline") && !$0.contains("Connection lost") }
            try await first.type("sent while you were away")
            try await first.press("Enter")
            try await first.wait(for: "queued: goes when the server is back")
            server = try await TestServer.start(directory: server.directory) { $0.http.port = port }
            try await first.wait(for: "the queued message sent", guardSeconds: 90) { screen in
                screen.contains("● online") && screen.split(separator: "\n").contains {
                    $0.hasSuffix("alice      sent while you were away") && !$0.hasPrefix("  ")  // stored: a time, not … or ◷
                }
            }
            let away = try await bob.history(.user("alice")).messages.filter { $0.text == "sent while you were away" }
            #expect(away.count == 1)

            // 4. A second terminal of the same account and home is its own device: it logs
            // in, and the first stays logged in and live.
            try FileManager.default.createDirectory(atPath: folder + "/second", withIntermediateDirectories: true)
            let second = try await TmuxSession.start(command, folder: folder + "/second")
            sessions.append(second)
            try await second.wait(for: "Username [alice ")
            try await second.type(Self.password)
            try await second.press("Enter")
            try await second.wait(for: "[1 Sessions]")
            try await bob.send("to both of you", to: .user("alice"))
            try await second.wait(for: "bob: to both of you")
            let firstScreen = try await first.wait(for: "bob        to both of you")
            #expect(!firstScreen.contains("Logged in elsewhere"))

            // The login is kept: the first terminal, started again, needs no password.
            try await first.press("C-c")
            try await first.wait(for: "Quit switchboard chat?")
            try await first.press("y")
            try await first.wait(for: "chat exited 0")
            await first.kill()
            sessions.removeFirst()
            try FileManager.default.createDirectory(atPath: folder + "/again", withIntermediateDirectories: true)
            let again = try await TmuxSession.start(command, folder: folder + "/again")
            sessions.append(again)
            try await again.wait(for: "[1 Sessions]")
            try await again.wait(for: "bob: to both of you")

            // 5. Counts agree after reading part-way: 40 new messages; opening shows the
            // first of them at the top, and the read marker goes to the newest on screen,
            // on this client, the second terminal and another client of the account.
            for index in 1...40 { try await bob.send(String(format: "count %02d", index), to: .user("alice")) }
            try await again.wait(for: "40 unread") { $0.contains("(40)") && $0.contains("bob: count 40") }
            try await again.press("Enter")
            let reading = try await again.wait(for: "the first unread at the top") { $0.contains("── new ──") && $0.contains("count 01") }
            let seen = reading.split(separator: "\n").compactMap { line -> Int? in
                guard let range = line.range(of: "count ") else { return nil }
                return Int(line[range.upperBound...].prefix(2))
            }.max() ?? 0
            #expect(seen > 5 && seen < 40)
            let left = 40 - seen
            try await again.press("Escape")
            try await again.wait(for: "[1 Sessions (\(left))]")
            try await second.wait(for: "1 Sessions (\(left))")
            let phone = IMClient(serverURL: server.baseURL, transport: TestClient.sharedTransport)
            try await phone.login(username: "alice", password: Self.password)
            let row = try await phone.conversation(.user("bob"))
            #expect(row.unread == left)
            for session in sessions { await session.kill() }
            await server.stop()
            server.removeData()
        } catch {
            for session in sessions { await session.kill() }
            await server.stop()
            server.removeData()
            throw error
        }
    }
}
