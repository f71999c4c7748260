import Foundation
import Logging
import Synchronization

/// One JSON line per action a bot takes (or would take, in dry mode), appended to
/// `<state folder>/audit.log` (mode 0600): who, which rule, which config version, what,
/// and how it went.
///
/// The file is a `LogFile`, like the process's log: each line is one `O_APPEND` write,
/// and ``reopen()`` (the runner's SIGHUP) moves to a new file at the path once logrotate
/// has renamed the old one; `copytruncate` works too. A line that cannot be written (a
/// full disk) is counted in `switchboard_runner_audit_failures_total` and logged once,
/// until writing works again; the bot goes on.
public final class AuditLog: Sendable {
    /// One line.
    public struct Entry: Encodable, Sendable {
        public var at: String
        public var bot: String
        public var rule: String
        public var configVersion: String
        /// The action's kind; absent on the line that says a rule's `stop` ended evaluation.
        public var action: String?
        public var mode: String
        public var outcome: String
        public var conversation: String?
        public var event: Int64?
        public var detail: String?

        enum CodingKeys: String, CodingKey {
            case at, bot, rule, action, mode, outcome, conversation, event, detail
            case configVersion = "config_version"
        }
    }

    /// Where the lines go; nil writes nowhere.
    private let file: LogFile?
    /// Whether the last line failed (its failure was logged).
    private let failing = Mutex(false)
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
    private let metrics: RunnerMetrics
    private let logger: Logger

    /// Appends to `path` (created when missing; 0600 whoever made it); nil writes nowhere.
    convenience init(path: String?, metrics: RunnerMetrics, logger: Logger) throws(RunnerError) {
        guard let path else {
            self.init(file: nil, metrics: metrics, logger: logger)
            return
        }
        try LocalFiles.makePrivateFolder((path as NSString).deletingLastPathComponent)
        let file: LogFile
        do {
            file = try LogFile(path: path, mode: 0o600, enforcingMode: true)
        } catch {
            throw RunnerError("cannot open the audit log \(path): \(error.reason)")
        }
        self.init(file: file, metrics: metrics, logger: logger)
    }

    /// Appends to `file` (tests use `/dev/full`).
    init(file: LogFile?, metrics: RunnerMetrics, logger: Logger) {
        self.file = file
        self.metrics = metrics
        self.logger = logger
    }

    /// Appends one line; a failure is counted and logged, never thrown.
    func record(_ entry: Entry) {
        guard let file, var line = try? encoder.encode(entry) else { return }
        line.append(0x0A)
        let failure: LogFileError?
        do {
            try file.append(Array(line))
            failure = nil
        } catch {
            failure = error
        }
        let wasFailing = failing.withLock { failing in
            defer { failing = failure != nil }
            return failing
        }
        guard let failure else {
            if wasFailing { logger.notice("the audit log \(file.path ?? "") is written again") }
            return
        }
        metrics.auditFailed()
        if !wasFailing {
            logger.error("cannot write the audit log \(failure.path): \(failure.reason); audit lines are counted in "
                         + "switchboard_runner_audit_failures_total until it works again")
        }
    }

    /// Opens the path again and writes there from now on (after logrotate renamed the
    /// file); when it cannot be opened, the file in use stays and the log says why.
    public func reopen() {
        guard let file, let path = file.path else { return }
        do {
            try file.reopen()
            logger.info("reopened the audit log \(path)")
        } catch {
            logger.error("\(error); still writing the audit log to the file that was there")
        }
    }
}
