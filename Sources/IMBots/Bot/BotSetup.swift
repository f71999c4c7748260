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

    /// Joins the groups and enters the rooms of `join:`, creating those that do not exist.
    private func joinConversations() async {
        for address in parts.rules.now.definition.join {
            do {
                switch address {
                case .group(let name):
                    do {
                        _ = try await parts.client.joinGroup(name)
                    } catch where error.apiCode == .notFound {
                        _ = try await parts.client.createGroup(name: name)
                        parts.logger.notice("bot \(parts.name): created group:\(name)")
                    }
                case .room(let name):
                    _ = try await parts.client.createRoom(name: name)
                default:
                    continue
                }
            } catch {
                parts.logger.warning("bot \(parts.name): cannot join \(address): \(error.message)")
            }
        }
    }
}
