import Lifecycle
import Synchronization

/// Invite-only groups that several bots of one runner join (`join:` in each file, such
/// as `group:oncall` for the help desk and the alert bridge): the bot that makes such a
/// group owns it, and is the only one that can let the others in.
///
/// A bot that finds a group it should join made and closed to it asks here: the bot that
/// made it (or administers it) invites it, and it joins. A bot asks only about a group
/// another bot of the runner also joins, and waits a bounded time for that bot to have
/// made it (bots start side by side), so a group made by people never holds a bot up.
final class SharedGroups: Sendable {
    /// Lets one user into the group; false when it could not.
    typealias Invite = @Sendable (_ username: String) async -> Bool

    private struct State {
        /// The bots whose `join:` names each group, by bot name.
        var joiners: [String: Set<String>] = [:]
        /// How the bot that made (or administers) each group invites.
        var doors: [String: Invite] = [:]
        var opened: [String: Latch] = [:]
    }

    private let state = Mutex(State())

    /// How long a bot waits for another to make a group they both join.
    static let patience = Duration.seconds(20)

    init() {}

    /// Notes which bots join which groups (at the start and after each reload).
    func note(_ definitions: [BotDefinition]) {
        var joiners: [String: Set<String>] = [:]
        for definition in definitions {
            for case .group(let name) in definition.join { joiners[name.lowercased(), default: []].insert(definition.name) }
        }
        state.withLock { $0.joiners = joiners }
    }

    /// Whether a bot other than `bot` joins `group`.
    func isShared(_ group: String, besides bot: String) -> Bool {
        state.withLock { !($0.joiners[group.lowercased()] ?? []).subtracting([bot]).isEmpty }
    }

    /// `invite` lets others into `group`: its caller made or administers it.
    func open(_ group: String, invite: @escaping Invite) {
        let latch = state.withLock { state -> Latch in
            state.doors[group.lowercased()] = invite
            return Self.latch(group, in: &state)
        }
        latch.open()
    }

    /// Asks the bot that opened `group` to invite `username`, waiting up to ``patience``
    /// on `time` for one to; false when none did, or its invitation failed.
    func requestInvitation(to group: String, for username: String, time: any TimeSource) async -> Bool {
        let latch = state.withLock { Self.latch(group, in: &$0) }
        await withTaskGroup(of: Void.self) { waits in
            waits.addTask { await latch.wait() }
            waits.addTask { try? await time.sleep(for: Self.patience) }
            await waits.next()
            waits.cancelAll()
        }
        guard let invite = state.withLock({ $0.doors[group.lowercased()] }) else { return false }
        return await invite(username)
    }

    private static func latch(_ group: String, in state: inout State) -> Latch {
        if let latch = state.opened[group.lowercased()] { return latch }
        let latch = Latch()
        state.opened[group.lowercased()] = latch
        return latch
    }
}
