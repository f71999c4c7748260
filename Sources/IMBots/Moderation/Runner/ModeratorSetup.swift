import IMClient
import IMProtocol

/// The moderators the bot file lists, made so without operator steps: each name is bound
/// to its account the first time the bot sees it (``ModerationBook/bindModerator(_:id:)``,
/// kept in the journal), then invited into the mod-log and the groups the bot moderates
/// and made an admin of each once a member, with a newcomer's restriction lifted. A name
/// whose account does not exist yet is looked up again later (the timer service asks
/// every minute); a name that now belongs to another account than the one it was bound to
/// (deleted and registered again) is not a moderator. A name listed with its account's id
/// (`NAME#ID`) is bound to that account only, so nobody can claim it by registering first.
struct ModeratorSetup: Sendable {
    let parts: BotParts

    /// How often names whose accounts do not exist yet are looked up again.
    static let retry: Duration = .seconds(60)

    /// Binds the listed names whose accounts exist and sets up every bound moderator;
    /// returns the names still waiting for their account.
    @discardableResult
    func run() async -> [String] {
        let definition = parts.rules.now.definition
        let book = parts.moderation.book
        var pending: [String] = []
        var moderators: [(name: String, id: Int64)] = []
        for name in definition.moderation.moderators {
            let user: User
            do {
                user = try await parts.client.user(named: name)
            } catch where error.apiCode == .notFound {
                pending.append(name)
                continue
            } catch {
                parts.logger.warning("bot \(parts.name): cannot look up moderator \(name): \(error.message)")
                pending.append(name)
                continue
            }
            let id = user.id.rawValue
            if let listed = definition.moderation.accountIDs[name] {
                guard listed == id else {
                    parts.logger.warning(
                        "bot \(parts.name): moderator \(name) is listed as account \(listed); the name belongs to "
                            + "account \(id), which is not made a moderator")
                    if book.moderator(named: name) != nil { book.bindModerator(name, id: nil) }
                    continue
                }
                if book.moderator(named: name) != id {
                    book.bindModerator(name, id: id)
                    parts.logger.notice("bot \(parts.name): moderator \(name) is account \(id), as listed: bound to it")
                }
            } else if let bound = book.moderator(named: name) {
                guard bound == id else {
                    parts.logger.warning(
                        "bot \(parts.name): moderator \(name) was bound to account \(bound); the name now belongs to "
                            + "account \(id), which is not made a moderator (a name can change hands; list the new "
                            + "account under another name, or remove the name and add it again to bind it afresh)")
                    continue
                }
            } else {
                book.bindModerator(name, id: id)
                parts.logger.notice("bot \(parts.name): moderator \(name) is account \(id) (created "
                                    + "\(user.createdAt.rfc3339)): bound to it from now on")
            }
            moderators.append((user.username.lowercased(), id))
        }
        // A name taken out of the file is no longer bound: listed again, it binds afresh.
        for name in (book.state.moderators ?? [:]).keys where !definition.moderation.moderators.contains(name) {
            book.bindModerator(name, id: nil)
        }
        guard !moderators.isEmpty else { return pending }
        for group in Self.groups(of: definition) { await setUp(moderators, in: group) }
        return pending
    }

    /// The mod-log and the groups the bot moderates: those of `join:` and those `listen:`
    /// names, mod-log first.
    static func groups(of definition: BotDefinition) -> [String] {
        var groups: [String] = []
        if case .group(let log)? = definition.moderation.log { groups.append(log) }
        for address in definition.join {
            if case .group(let name) = address, !groups.contains(name) { groups.append(name) }
        }
        for pattern in definition.listen {
            if case .group(let name) = pattern, !groups.contains(name) { groups.append(name) }
        }
        return groups
    }

    /// Invites the moderators who are not members of `group`, promotes those who are, and
    /// lifts a newcomer's restriction; always the bound account, never whoever holds the
    /// name by then.
    private func setUp(_ moderators: [(name: String, id: Int64)], in group: String) async {
        do {
            let members = Dictionary(try await parts.client.groupMembers(group).map { ($0.user.username.lowercased(), $0) },
                                     uniquingKeysWith: { first, _ in first })
            for (name, id) in moderators {
                guard let member = members[name] else {
                    do {
                        // Only while the name is still this account's.
                        _ = try await parts.client.inviteToGroup(group, user: name, id: UserID(rawValue: id))
                    } catch where error.apiCode == .conflict {
                        // Invited already: they become admins when they join.
                    } catch where error.apiCode == .notFound {
                        parts.logger.warning("bot \(parts.name): moderator \(name) is no longer account \(id): "
                                             + "not invited to group:\(group)")
                    }
                    continue
                }
                // The name changed hands since it was looked up: not this account.
                guard member.user.id.rawValue == id else { continue }
                try await Self.makeModerator(name, member: member, in: group, client: parts.client)
            }
        } catch {
            parts.logger.warning("bot \(parts.name): cannot set up the moderators in group:\(group): \(error.message)")
        }
    }

    /// Makes a member who is a moderator an admin of `group`, able to post.
    static func makeModerator(_ name: String, member: Member?, in group: String,
                              client: IMClient) async throws(IMClientError) {
        if member?.restricted == true || member?.muted == true || member == nil {
            do {
                _ = try await client.moderate(group: group, .unmute, user: name, reason: "a moderator")
            } catch where error.apiCode == .conflict {
                // Nothing to lift.
            }
        }
        if member.map({ $0.role == .member }) ?? true {
            _ = try await client.moderate(group: group, .promote, user: name)
        }
    }
}
