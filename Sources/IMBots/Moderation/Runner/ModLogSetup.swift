import IMClient
import IMProtocol

/// Makes sure a bot's mod-log exists when it starts: an invite-only group (it repeats
/// deleted messages), created by the bot when it is missing, with the file's moderators
/// invited, and made its admins once they are members.
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
            let members = Dictionary(try await parts.client.groupMembers(name).map { ($0.user.username.lowercased(), $0.role) },
                                     uniquingKeysWith: max)
            for moderator in settings.moderators {
                switch members[moderator] {
                case nil:
                    do {
                        _ = try await parts.client.inviteToGroup(name, user: moderator)
                    } catch where error.apiCode == .conflict {
                        // Invited already; they become admins when they join.
                    }
                case .member?:
                    _ = try await parts.client.moderate(group: name, .promote, user: moderator)
                default:
                    break
                }
            }
        } catch {
            parts.logger.warning("bot \(parts.name): cannot set up the mod-log group:\(name): \(error.message)")
        }
    }
}
