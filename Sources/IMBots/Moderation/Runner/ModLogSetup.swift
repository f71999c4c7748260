import IMClient
import IMProtocol

/// Makes sure a bot's mod-log exists when it starts: an invite-only group (it repeats
/// deleted messages), created by the bot when it is missing. Its moderators are
/// ``ModeratorSetup``'s.
struct ModLogSetup: Sendable {
    let parts: BotParts

    func ensure() async {
        let settings = parts.rules.now.definition.moderation
        guard case .group(let name)? = settings.log else { return }
        do {
            do {
                _ = try await parts.client.joinGroup(name)
            } catch where error.apiCode == .notFound {
                _ = try await parts.client.createGroup(name: name, description: "Moderation cases", join: .invite)
                parts.logger.notice("bot \(parts.name): created the mod-log group:\(name) (invite only)")
            }
            let info = try await parts.client.groupInfo(name)
            if info.join != .invite {
                parts.logger.warning("bot \(parts.name): the mod-log group:\(name) is not invite-only (join: "
                                     + "\(info.join?.rawValue ?? "?")): outsiders can read the deleted messages it repeats")
            }
        } catch {
            parts.logger.warning("bot \(parts.name): cannot set up the mod-log group:\(name): \(error.message)")
        }
    }
}
