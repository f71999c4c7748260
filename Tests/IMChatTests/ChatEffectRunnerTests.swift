import Foundation
import IMClient
import IMProtocol
import TestSupport
import Testing

@testable import IMChat

/// The client's commands against a real server on 127.0.0.1: what the server answers for
/// groups' doors and rules becomes the results the screens expect (a request that
/// waits, a refused post with its reason, the lists of Contacts).
@Suite struct ChatEffectRunnerTests {
    static func runner(_ server: TestServer, _ folder: String, _ name: String) -> ChatEffectRunner {
        ChatEffectRunner(configuration: ChatConfiguration(
            server: server.baseURL, transport: TestClient.sharedTransport, profileStore: ProfileStore(root: folder + "/" + name)))
    }

    static func logIn(_ runner: ChatEffectRunner, _ name: String) async throws {
        guard case .loggedIn? = await runner.perform(.register(username: name, password: "\(name)-password")) else {
            throw TestFailure("\(name) could not register")
        }
    }

    static func contacts(_ runner: ChatEffectRunner) async throws -> ContactLists {
        guard case .contacts(let lists)? = await runner.perform(.loadContacts) else { throw TestFailure("no contacts") }
        return lists
    }

    /// Sends `text` as alice in club; the block of a refusal, nil when it was sent.
    static func post(_ runner: ChatEffectRunner, _ text: String, id: String) async throws -> PostingBlock? {
        let key = DialogueKey(address: .group("club"))
        switch await runner.perform(.send(key, text: text, replyTo: nil, clientID: id)) {
        case .sent?: return nil
        case .sendFailed(_, _, let reason, let block, _)?:
            guard let block else { throw TestFailure("refused with no reason the input line can show: \(reason)") }
            return block
        default: throw TestFailure("no answer to the send")
        }
    }

    /// Runs `body` with alice's and bob's clients, registered on a server of their own.
    static func withAliceAndBob(_ body: (ChatEffectRunner, ChatEffectRunner) async throws -> Void) async throws {
        try await withServer { server in
            let folder = TestServer.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let (alice, bob) = (Self.runner(server, folder, "alice"), Self.runner(server, folder, "bob"))
            try await Self.logIn(alice, "alice")
            try await Self.logIn(bob, "bob")
            try await body(alice, bob)
        }
    }

    @Test func requestsRefusalsAndListsAsTheServerDecides() async throws {
        try await Self.withAliceAndBob { alice, bob in
            // A group that takes requests, with newcomers waiting and slow mode.
            guard case .joined? = await bob.perform(.createGroup(CreateConversationRequest(name: "club", join: .approval))) else { throw TestFailure("no club") }
            let club = try #require(bob.client)
            try await club.updateGroupSettings("club", GroupSettings(newMembers: .restricted, slowMode: ConfigDuration("1h")))
            guard case .joinRequested(let request)? = await alice.perform(.joinGroup("club")) else {
                throw TestFailure("joining an approval group should wait")
            }
            #expect(request.group == "club" && request.user == "alice")
            #expect(try await Self.contacts(alice).myRequests.map(\.group) == ["club"])
            let bobs = try await Self.contacts(bob)
            #expect(bobs.decides == ["club"] && bobs.requests.map(\.user) == ["alice"])
            guard case .settled(_, _, approved: true)? = await bob.perform(.approveRequest(group: "club", user: "alice")) else {
                throw TestFailure("not approved")
            }
            #expect(try await Self.contacts(alice).decides.isEmpty)  // a member, not an admin

            // The newcomer waits, then slow mode counts, then a mute holds until its end.
            #expect(try await Self.post(alice, "hello?", id: "a-1") == .restricted)
            guard case .moderated(let unmuted)? = await bob.perform(.moderate(group: "club", ModerationRequest(action: .unmute, user: "alice"))),
                unmuted.changed
            else { throw TestFailure("not unmuted") }
            #expect(try await Self.post(alice, "hello", id: "a-2") == nil)
            guard case .slowMode(let seconds, _)? = try await Self.post(alice, "and again", id: "a-3") else {
                throw TestFailure("slow mode should refuse the second post")
            }
            #expect(seconds > 3500 && seconds <= 3600)
            _ = await bob.perform(.moderate(group: "club", ModerationRequest(action: .mute, user: "alice", duration: ConfigDuration("2h"))))
            guard case .muted(let until)? = try await Self.post(alice, "muted?", id: "a-4") else { throw TestFailure("not muted") }
            #expect(until != nil)

            // Edits of a muted member are refused with the same reason; an owner deletes her message.
            let said = try await club.history(.group("club")).messages.first { $0.text == "hello" }
            let hello = try #require(said)
            let key = DialogueKey(address: .group("club"))
            guard case .editFailed(_, _, let text, _, .muted?)? = await alice.perform(.editMessage(key, hello.id, text: "hello!"))
            else { throw TestFailure("a muted edit should fail as muted") }
            #expect(text == "hello!")
            guard case .messageChanged(_, let deleted)? = await bob.perform(.deleteMessage(key, hello.id)) else {
                throw TestFailure("not deleted")
            }
            #expect(deleted.deletedAt != nil && deleted.text.isEmpty)
        }
    }

    @Test func invitationsDeclinedAndBlocksShowInTheLists() async throws {
        try await Self.withAliceAndBob { alice, bob in
            guard case .joined(let inner)? = await bob.perform(.createGroup(CreateConversationRequest(name: "inner", join: .invite))) else {
                throw TestFailure("no group")
            }
            #expect(inner.join == .invite)
            guard case .invited(let invite)? = await bob.perform(.invite(group: "inner", user: "alice")) else {
                throw TestFailure("not invited")
            }
            #expect(invite.invitedBy == "bob")
            #expect(try await Self.contacts(alice).invites.map(\.group) == ["inner"])
            guard case .settled(let group, let user, approved: false)? = await alice.perform(.declineInvite(group: "inner")) else {
                throw TestFailure("not declined")
            }
            #expect(group == "inner" && user == "alice")
            #expect(try await Self.contacts(alice).invites.isEmpty)

            guard case .blockChanged("bob", blocked: true)? = await alice.perform(.block("bob")) else { throw TestFailure("not blocked") }
            #expect(try await Self.contacts(alice).blocked.map(\.username) == ["bob"])
            guard case .failed(let refused)? = await bob.perform(.invite(group: "inner", user: "nobody")) else {
                throw TestFailure("an unknown user should not be invited")
            }
            #expect(refused.hasPrefix("cannot invite nobody to #inner"))
            guard case .blockChanged("bob", blocked: false)? = await alice.perform(.unblock("bob")) else { throw TestFailure("not unblocked") }
        }
    }

    @Test func theDirectoryAndAGroupsSettingsAsTheServerKeepsThem() async throws {
        try await Self.withAliceAndBob { alice, bob in
            let request = CreateConversationRequest(
                name: "chess", title: "Chess Club", description: "Tuesdays", join: .open, newMembers: .restricted,
                slowMode: ConfigDuration("30s"))
            guard case .joined(let created)? = await bob.perform(.createGroup(request)) else { throw TestFailure("no group") }
            #expect(created.title == "Chess Club" && created.newMembers == .restricted && created.slowMode?.seconds == 30)
            guard case .directory(let page, "CHESS", nil)? = await alice.perform(.loadDirectory(search: "CHESS", after: nil)) else {
                throw TestFailure("no directory")
            }
            #expect(page.groups == [DirectoryGroup(name: "chess", title: "Chess Club", description: "Tuesdays", join: .open, members: 1)])
            #expect(page.nextAfter == nil)
            guard case .joined? = await alice.perform(.joinGroup("chess")) else { throw TestFailure("not joined") }
            // The owner changes the settings later: only what changed is sent.
            let update = ConversationInfoUpdate(join: .approval, slowMode: ConfigDuration(seconds: 0))
            guard case .infoUpdated(let changed)? = await bob.perform(.updateInfo(.group, "chess", update)) else {
                throw TestFailure("not changed")
            }
            #expect(changed.join == .approval && changed.slowMode == nil && changed.newMembers == .restricted)
        }
    }
}
