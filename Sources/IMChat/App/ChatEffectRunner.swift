import Foundation
import IMClient
import IMProtocol
import Synchronization

/// Carries out the state's commands against the server and the local profile store, and
/// turns each outcome into the `ChatResult` the state expects.
///
/// Holds the login: a new `IMClient` per login, so nothing of one account's login
/// survives into the next.
final class ChatEffectRunner: Sendable {
    let configuration: ChatConfiguration
    /// Where avatars' pictures are made ready to draw (nil: the terminal draws none).
    let pictures: Pictures?
    /// The client of the current login (a new one per login).
    let current = Mutex<IMClient?>(nil)

    init(configuration: ChatConfiguration, pictures: Pictures? = nil) {
        self.configuration = configuration
        self.pictures = pictures
    }

    /// The longest `Retry-After` a send waits out before the failure is shown.
    static let longestQuietWait = Duration.seconds(2)

    /// The client of the current login.
    var client: IMClient? { current.withLock { $0 } }

    var store: ProfileStore { configuration.profileStore }

    /// Runs `command`; nil when it has no answer for the state.
    func perform(_ command: ChatEffect) async -> ChatResult? {
        switch command {
        case .loadLastUser:
            let name = store.lastUsername
            let kept = name.flatMap { store.login(of: $0, slot: configuration.loginSlot) }
            return .lastUser(name, name.flatMap { store.profile(of: $0) }, resumable: kept?.serverURL == configuration.server)
        case .lookUpLocalProfile(let name):
            return .localProfile(username: name, store.profile(of: name))
        case .resumeLogin(let username):
            return await resume(username)
        case .loadPicture(let key):
            return .picture(key, ready: await picture(key))
        case .login(let username, let password):
            return await logIn(username) { client throws(IMClientError) in
                try await client.login(username: username, password: password)
            }
        case .register(let username, let password):
            return await logIn(username, failure: ChatResult.registerFailed) { client throws(IMClientError) in
                try await client.register(username: username, password: password)
            }
        case .logout:
            let client = current.withLock { state -> IMClient? in
                defer { state = nil }
                return state
            }
            // A server that is gone or a login that ended elsewhere still ends here, and
            // this machine forgets it.
            if let name = client?.currentUser?.username { try? store.removeLogin(of: name, slot: configuration.loginSlot) }
            try? await client?.logout()
            return .loggedOut
        case .startLive, .suspend, .redraw, .quit, .bell, .wake:
            return nil  // the app's own
        default:
            guard let client else { return nil }
            do {
                return try await perform(command, with: client)
            } catch {
                return failure(of: command, error)
            }
        }
    }

    private func perform(_ command: ChatEffect, with client: IMClient) async throws(IMClientError) -> ChatResult? {
        switch command {
        case .loadSessions:
            return .sessions(try await client.conversations())
        case .loadConversation(let address):
            do {
                return .conversation(try await client.conversation(address), requested: address)
            } catch where error.apiCode == .notFound {
                return .conversationUnavailable(address, reason: nil)  // a one-to-one conversation with no message yet
            }
        case .loadContacts:
            return .contacts(try await contactLists(client))
        case .loadHistory(let key, let before, let limit):
            return .history(key, try await client.history(key.address, before: before, limit: limit), before: before)
        case .send(let key, let text, let replyTo, let clientID):
            return .sent(key, clientID: clientID, try await client.send(text, to: key.address, replyTo: replyTo, clientMessageID: clientID))
        case .changePassword(let old, let new):
            let auth = try await client.changePassword(old: old, new: new)
            keep(auth)
            return .passwordChanged(auth.user)
        case .loadDirectory(let search, let after):
            do {
                return .directory(try await client.directory(search: search, after: after, limit: 50), search: search, after: after)
            } catch {
                return .directoryFailed(error.message, search: search)
            }
        case .whois(let name):
            return .whois(try await client.user(named: name))
        case .editMessage(let key, let id, let text):
            do {
                return .messageChanged(key, try await client.editMessage(id, in: key.address, text: text))
            } catch {
                return .editFailed(key, id, text: text, error.message, block: Self.block(error))
            }
        case .deleteMessage(let key, let id):
            return .messageChanged(key, try await client.deleteMessage(id, in: key.address))
        case .markRead(let key, let seq):
            return .markedRead(key, seq: try await client.markRead(key.address, seq: seq))
        case .addContact(let name):
            return .contactAdded(try await client.addContact(name))
        case .removeContact(let name):
            try await client.removeContact(name)
            return .contactRemoved(name)
        case .block(let name):
            try await client.block(name)
            return .blockChanged(name, blocked: true)
        case .unblock(let name):
            try await client.unblock(name)
            return .blockChanged(name, blocked: false)
        case .createGroup(let request):
            return .joined(try await client.createGroup(request))
        case .joinGroup(let name):
            switch try await client.join(group: name) {
            case .joined(let info): return .joined(info)
            case .requested(let request): return .joinRequested(request)
            }
        case .declineInvite(let group):
            try await client.revokeInvite(group, user: client.currentUser?.username ?? "")
            return .settled(group: group, user: client.currentUser?.username ?? "", approved: false)
        case .invite(let group, let user):
            return .invited(try await client.inviteToGroup(group, user: user))
        case .approveRequest(let group, let user):
            try await client.approveJoinRequest(group, user: user)
            return .settled(group: group, user: user, approved: true)
        case .revokeRequest(let group, let user):
            try await client.revokeJoinRequest(group, user: user)
            return .settled(group: group, user: user, approved: false)
        case .moderate(let group, let request):
            return .moderated(try await client.moderate(
                group: group, request.action, user: request.user, duration: request.duration, reason: request.reason))
        case .loadMembers(let kind, let name):
            do {
                let members = kind == .room ? try await client.roomMembers(name) : try await client.groupMembers(name)
                return .members(kind, name, members)
            } catch {
                return nil  // the history load says what is wrong
            }
        case .createRoom(let name):
            return .joined(try await client.createRoom(name: name))
        case .enterRoom(let name):
            return .joined(try await client.enterRoom(name))
        case .leave(let kind, let name):
            if kind == .room { try await client.leaveRoom(name) } else { try await client.leaveGroup(name) }
            return .left(kind, name)
        case .loadInfo(let kind, let name):
            if kind == .room { return .info(try await client.roomInfo(name), try await client.roomMembers(name)) }
            return .info(try await client.groupInfo(name), try await client.groupMembers(name))
        case .loadUser(let name):
            return .user(try await client.user(named: name))
        case .updateInfo(let kind, let name, let update):
            let info = kind == .room ? try await client.updateRoom(name, update) : try await client.updateGroup(name, update)
            return .infoUpdated(info)
        case .updateProfile(let update):
            let user = try await client.updateProfile(update)
            try? store.saveProfile(user)
            return .profileUpdated(user)
        case .uploadAvatar(let path):
            let image = try Self.readImage(path)
            let upload = try await client.uploadAvatar(image)
            try? store.saveProfile(upload.user)
            try? store.saveAvatar(image, for: upload.user.username)
            return .profileUpdated(upload.user)
        default:
            return nil
        }
    }

    /// Everything the Contacts screen shows. Join requests are listed for the groups that
    /// take them and where the server lets this user decide (an owner's or admin's).
    private func contactLists(_ client: IMClient) async throws(IMClientError) -> ContactLists {
        var lists = ContactLists(
            users: try await client.contacts(), groups: try await client.myGroups(), rooms: try await client.myRooms(),
            blocked: try await client.blockedUsers(), invites: try await client.myInvites(),
            myRequests: try await client.myJoinRequests())
        for group in lists.groups where group.join == .approval {
            do {
                lists.requests += try await client.groupJoinRequests(group.name)
                lists.decides.insert(group.name)
            } catch where error.apiCode == .forbidden || error.apiCode == .notFound {
                continue  // a member who does not decide, or a group gone meanwhile
            }
        }
        return lists
    }

    /// Why the server refuses this user's posts, when that is what `error` says.
    static func block(_ error: IMClientError) -> PostingBlock? {
        PostingBlock(refusal: error.api, at: .now())
    }

    /// True when a send did not reach the server (it may be queued and sent again).
    static func unreachable(_ error: IMClientError) -> Bool {
        switch error.code {
        case .unreachable, .timedOut, .connectionLost, .api(.unavailable): true
        default: false
        }
    }

    /// The answer when `command` failed: a sentence naming what failed and why.
    private func failure(of command: ChatEffect, _ error: IMClientError) -> ChatResult? {
        switch command {
        case .loadHistory(let key, _, _): return .historyFailed(key, error.message)
        case .loadConversation(let address): return .conversationUnavailable(address, reason: error.message)
        case .send(let key, _, _, let clientID):
            return .sendFailed(key, clientID: clientID, error.message, block: Self.block(error), unreachable: Self.unreachable(error))
        case .markRead: return nil  // the next message seen sends a newer marker
        case .loadSessions: return .failed("cannot load the conversations: \(error.message)")
        case .loadContacts: return .failed("cannot load contacts, groups and rooms: \(error.message)")
        case .addContact(let name): return .failed("cannot add \(name): \(error.message)")
        case .createGroup(let request): return .failed("cannot create the group \(request.name): \(error.message)")
        case .changePassword: return .failed("the password is unchanged: \(error.message)")
        case .whois(let name): return .failed("cannot look up \(name): \(error.message)")
        case .joinGroup(let name): return .failed("cannot join the group \(name): \(error.message)")
        case .deleteMessage: return .failed("not deleted: \(error.message)")
        case .moderate(let group, let request):
            return .failed("cannot \(request.action.rawValue) \(request.user) in #\(group): \(error.message)")
        case .invite(let group, let user): return .failed("cannot invite \(user) to #\(group): \(error.message)")
        case .block(let name): return .failed("cannot block \(name): \(error.message)")
        case .unblock(let name): return .failed("cannot unblock \(name): \(error.message)")
        case .createRoom(let name): return .failed("cannot create the room \(name): \(error.message)")
        case .enterRoom(let name): return .failed("cannot enter the room \(name): \(error.message)")
        default: return .failed(error.message)
        }
    }

    /// The bytes of an avatar file, refusing anything over the server's limit before reading it.
    static func readImage(_ path: String) throws(IMClientError) -> Data {
        let expanded = (path as NSString).expandingTildeInPath
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: expanded),
            let size = attributes[.size] as? Int
        else { throw IMClientError(.invalidArgument, "cannot read \(path): no such file") }
        guard size <= Limits.avatarBytes else {
            throw IMClientError(.invalidArgument, "\(path) has \(size) bytes; an avatar may have at most 2 MiB")
        }
        guard let data = FileManager.default.contents(atPath: expanded) else {
            throw IMClientError(.invalidArgument, "cannot read \(path)")
        }
        guard ImageFormat.sniff(data) != nil else {
            throw IMClientError(.invalidArgument, "\(path) is not a PNG, JPEG, GIF or WebP image")
        }
        return data
    }
}
