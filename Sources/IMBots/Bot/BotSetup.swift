import Foundation
import IMClient
import IMProtocol
import SwitchboardCrypto

/// What a bot does once logged in, before it takes events: applies its file's profile
/// and joins the groups and rooms of `join:`.
struct BotSetup: Sendable {
    let parts: BotParts

    /// Returns the identity with the nickname the profile gave it.
    func apply(_ identity: BotContext.Identity) async -> BotContext.Identity {
        var identity = identity
        if let nickname = await applyProfile() { identity.nickname = nickname }
        await joinConversations()
        return identity
    }

    /// Applies changed fields only, and the avatar when its file changed; the new nickname.
    private func applyProfile() async -> String? {
        guard let profile = parts.rules.now.definition.profile, let me = try? await parts.client.me() else { return nil }
        var update = ProfileUpdate()
        if let nickname = profile.nickname, nickname != me.nickname { update.nickname = nickname }
        if let signature = profile.signature, signature != me.signature { update.signature = signature }
        if !profile.attrs.isEmpty, profile.attrs != me.attrs { update.attrs = profile.attrs }
        var nickname: String?
        do {
            if !update.isEmpty { nickname = try await parts.client.updateProfile(update).nickname }
            if let path = profile.avatarPath, let image = try LocalFiles.read(path) {
                let hash = Digest.hex(Digest.sha256(image))
                if hash != parts.journal.state.avatarHash || me.avatarURL.isEmpty {
                    _ = try await parts.client.uploadAvatar(image)
                    parts.journal.record(.avatar(hash))
                }
            }
        } catch {
            parts.logger.warning("bot \(parts.name): could not apply the profile: \(error)")
        }
        return nickname
    }

    /// Joins the groups and enters the rooms of `join:`, creating those that do not exist
    /// (groups with the settings `join:` gives them), then the mod-log. A group another
    /// bot of the runner joins too is shared (``SharedGroups``): who made it lets the
    /// others in.
    private func joinConversations() async {
        let definition = parts.rules.now.definition
        for address in definition.join {
            do {
                switch address {
                case .group(let name):
                    try await joinGroup(name)
                case .room(let name):
                    _ = try await parts.client.createRoom(name: name)
                default:
                    continue
                }
            } catch {
                parts.logger.warning("bot \(parts.name): cannot join \(address): \(error.message)")
            }
        }
        await ModLogSetup(parts: parts).ensure()
        await ModeratorSetup(parts: parts).run()
    }

    private func joinGroup(_ name: String) async throws(IMClientError) {
        let shared = parts.groups.isShared(name, besides: parts.name)
        do {
            _ = try await parts.client.joinGroup(name)
            // Joined: a failure to read the members only costs the others their door.
            if shared, (try? await administers(name)) == true { openDoor(name) }
            return
        } catch where error.apiCode == .notFound {
            // Not there, or invite-only and not open to this bot: make it, else ask.
        }
        do {
            let settings = parts.rules.now.definition.groupSettings[name] ?? GroupSettings()
            _ = try await parts.client.createGroup(name: name, join: settings.join)
            var rest = settings
            rest.join = nil
            if !rest.isEmpty { _ = try await parts.client.updateGroupSettings(name, rest) }
            parts.logger.notice("bot \(parts.name): created group:\(name)"
                                + (settings.join.map { " (join: \($0.rawValue))" } ?? ""))
            if shared { openDoor(name) }
            return
        } catch where error.apiCode == .conflict && shared {
            let username = parts.rules.now.definition.account.username
            guard await parts.groups.requestInvitation(to: name, for: username, time: parts.time) else {
                throw IMClientError(.api(.notFound), "group:\(name) is invite-only and no bot of this runner let "
                                    + "\(username) in; invite it (its owner or admins, or a server administrator)")
            }
            _ = try await parts.client.joinGroup(name)
        }
    }

    /// Whether the bot may invite people into `name` (an admin or its owner).
    private func administers(_ name: String) async throws(IMClientError) -> Bool {
        let username = parts.rules.now.definition.account.username
        return try await parts.client.groupMembers(name).contains { $0.user.username == username && $0.role >= .admin }
    }

    /// Lets the runner's other bots that join `name` in through this bot.
    private func openDoor(_ name: String) {
        let client = parts.client
        parts.groups.open(name) { username in
            do throws(IMClientError) {
                _ = try await client.inviteToGroup(name, user: username)
                return true
            } catch {
                // Invited before, or a member already: joining will tell.
                return error.apiCode == .conflict
            }
        }
    }
}
