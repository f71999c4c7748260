import Foundation
import IMProtocol
import Templates

/// What a bot kept between runs, read from its state folder without taking its lock and
/// without repairing anything: for `switchboard explain --state`, which shows strikes and
/// state variables as the running bot has them.
public struct SavedBotState: Sendable {
    /// The rules' state variables.
    public let variables: [String: TemplateValue]
    /// Strikes, cases, verifications, as of the last record written.
    public let moderation: ModerationBook

    /// Reads `folder` (`<runner state>/<bot>`): the snapshot and the records after it, up to
    /// the first one that cannot be read (a record being written). Nil when the bot has
    /// not run yet.
    public static func read(folder: String) throws(RunnerError) -> SavedBotState? {
        let snapshot = try LocalFiles.read(folder + "/state.json")
        let journal = try LocalFiles.read(folder + "/journal.jsonl")
        guard snapshot != nil || journal != nil else { return nil }
        var state = JournalState()
        if let snapshot {
            do {
                state = try JSONDecoder().decode(JournalState.self, from: snapshot)
            } catch {
                throw RunnerError("\(folder)/state.json cannot be read: \(error)")
            }
        }
        let decoder = JSONDecoder()
        for line in (journal ?? Data()).split(separator: 0x0A) {
            guard let record = try? decoder.decode(JournalRecord.self, from: line) else { break }
            state.apply(record)
        }
        return SavedBotState(variables: state.variables, moderation: ModerationBook(state: state.moderation) { _ in })
    }
}

extension SavedBotState {
    /// One line for each strike counter of `definition`'s rules: `user`'s points on it at
    /// `now`, decayed as the running bot would count them.
    public func strikes(of user: String, in definition: BotDefinition, at now: Timestamp) -> [String] {
        var seen: Set<String> = []
        var lines: [String] = []
        for rule in definition.rules {
            for action in rule.actions {
                guard case .moderation(.strike(let spec)) = action.spec, seen.insert(spec.counter).inserted else { continue }
                let points = moderation.points(counter: spec.counter, user: user, decay: spec.decayMilliseconds,
                                               at: now.milliseconds)
                let decay = spec.decay.map { "one falls off per \($0) without a new strike" } ?? "they never fall off"
                lines.append("strikes of \(user.lowercased()) on \(spec.counter): \(points) (\(decay))")
            }
        }
        return lines
    }
}
