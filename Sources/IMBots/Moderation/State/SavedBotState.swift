import Foundation
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
