import Foundation
import IMProtocol
import Synchronization

/// The bot files the runner could not take, and what runs instead of each: a bot on its
/// old rules (a reload failed) or no bot at all (the file was broken from the start).
/// `/healthz` answers "degraded" while there is any, `/metrics` counts failed reloads per
/// bot, and `switchboard run` exits with status 2 when a problem is left at its stop.
/// With journals on the server `/healthz` also says who runs each bot (``Lease``); a bot
/// another runner holds is no problem.
public final class RunnerHealth: Sendable {
    /// One file the runner could not take.
    public struct Problem: Sendable, Hashable, Encodable {
        /// What runs meanwhile.
        public enum State: String, Sendable, Hashable, Encodable {
            /// The bot keeps the rules it had (`version`).
            case oldRules = "old_rules"
            /// No bot runs from this file.
            case notRunning = "not_running"
        }

        /// The bot file.
        public let file: String
        /// The bot's name (or, when the file does not say, the file's).
        public let bot: String
        public let state: State
        /// The version of the rules the bot runs on, for `oldRules`.
        public let version: String?
        /// When the file first had this problem (it may have changed since, and still fail).
        public let since: String
        /// Why, as `file:line:column: message` lines.
        public let errors: [String]
    }

    /// Who runs a bot whose journal is on the server, as this runner knows it.
    struct Lease: Sendable, Hashable, Encodable {
        enum State: String, Sendable, Hashable, Encodable {
            /// This runner holds the lease and runs the bot (under `fence`).
            case here
            /// Another runner holds it (`holder`).
            case elsewhere
            /// Not known yet: not asked, the server out of reach, or the holding here just ended.
            case unknown
        }

        let bot: String
        let state: State
        /// The fencing number the bot runs under here, for `here`.
        let fence: Int64?
        /// The other runner as the server names it (its `runner.id` and a suffix of its
        /// process), for `elsewhere`.
        let holder: String?

        init(bot: String, _ holding: BotLeaseKeeper.Holding) {
            self.bot = bot
            switch holding {
            case .unknown: (state, fence, holder) = (.unknown, nil, nil)
            case .here(let fence): (state, self.fence, holder) = (.here, fence, nil)
            case .elsewhere(let holder): (state, fence, self.holder) = (.elsewhere, nil, holder)
            }
        }
    }

    private struct Entry {
        var problem: Problem
        /// The file's bytes when it last failed, so a reload of the same bytes is not a new failure.
        var failedVersion: String?
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let metrics: RunnerMetrics

    init(metrics: RunnerMetrics) {
        self.metrics = metrics
    }

    /// Notes that `file` could not be taken; `running` is the bot it left in place, if one.
    /// In a reload, a file that failed with other bytes than last time counts as one
    /// failed reload of its bot.
    func failed(_ file: BotCatalog.File, errors: [String], running: BotDefinition?, reload: Bool, at time: Timestamp) {
        let counts = entries.withLock { entries -> Bool in
            let earlier = entries[file.path]
            let problem = Problem(file: file.path, bot: running?.name ?? file.label,
                                  state: running == nil ? .notRunning : .oldRules, version: running?.version,
                                  since: earlier?.problem.since ?? time.rfc3339, errors: errors)
            entries[file.path] = Entry(problem: problem, failedVersion: file.version)
            return reload && (earlier == nil || earlier?.failedVersion != file.version)
        }
        let bot = running?.name ?? file.label
        if counts { metrics.reloadFailed(bot: bot) }
        metrics.configFailing(bot: bot, true)
    }

    /// Notes that `file` was taken: its bot runs on its rules.
    func fine(_ file: BotCatalog.File) {
        if let gone = entries.withLock({ $0.removeValue(forKey: file.path) }), gone.problem.bot != file.label {
            metrics.configFailing(bot: gone.problem.bot, false)
        }
        metrics.fileTaken(bot: file.label)
    }

    /// Forgets the files that are no longer in the folder.
    func keep(only paths: Set<String>) {
        let gone = entries.withLock { entries -> [Entry] in
            let gone = entries.filter { !paths.contains($0.key) }.map(\.value)
            entries = entries.filter { paths.contains($0.key) }
            return gone
        }
        for entry in gone { metrics.configFailing(bot: entry.problem.bot, false) }
    }

    /// The files the runner could not take, in path order.
    public var problems: [Problem] {
        entries.withLock { $0.values.map(\.problem) }.sorted { $0.file < $1.file }
    }

    /// Whether any file could not be taken.
    public var isDegraded: Bool { entries.withLock { !$0.isEmpty } }

    /// The `/healthz` answer: `{"status": "ok"|"degraded", "bots": [...], "problems": [...]}`,
    /// with journals on the server also `"holder"` (this runner as leases name it) and
    /// `"leases": [...]`.
    func report(bots: [String], leases: (holder: String, bots: [Lease])? = nil) -> Data {
        struct Report: Encodable {
            var status: String
            var bots: [String]
            var problems: [Problem]
            var holder: String?
            var leases: [Lease]?
        }
        let problems = self.problems
        let report = Report(status: problems.isEmpty ? "ok" : "degraded", bots: bots, problems: problems,
                            holder: leases?.holder, leases: leases?.bots)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(report)) ?? Data(#"{"status":"degraded"}"#.utf8)
    }
}
