#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import Synchronization

/// One JSON line per action a bot takes (or would take, in dry mode), appended to
/// `<state folder>/audit.log` (mode 0600): who, which rule, which config version, what,
/// and how it went. Rotate it with logrotate's `copytruncate`: lines are appended with
/// `O_APPEND`, so they land at the end of the truncated file.
///
/// A line that cannot be written (a full disk) is counted in
/// `switchboard_runner_audit_failures_total` and logged once, until writing works
/// again; the bot goes on.
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

    private struct State {
        var fd: Int32?
        var failing = false
    }

    private let path: String?
    private let state: Mutex<State>
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
    private let metrics: RunnerMetrics
    private let logger: Logger

    /// Appends to `path` (created when missing, 0600); nil writes nowhere.
    convenience init(path: String?, metrics: RunnerMetrics, logger: Logger) throws(RunnerError) {
        guard let path else {
            self.init(descriptor: nil, path: nil, metrics: metrics, logger: logger)
            return
        }
        try LocalFiles.makePrivateFolder((path as NSString).deletingLastPathComponent)
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw RunnerError("cannot open the audit log \(path): \(SystemError.text())") }
        fchmod(fd, 0o600)
        self.init(descriptor: fd, path: path, metrics: metrics, logger: logger)
    }

    /// Appends to an open file, which the log closes when it goes (tests use `/dev/full`).
    init(descriptor: Int32?, path: String?, metrics: RunnerMetrics, logger: Logger) {
        self.path = path
        self.metrics = metrics
        self.logger = logger
        state = Mutex(State(fd: descriptor))
    }

    deinit {
        state.withLock { state in
            if let fd = state.fd { close(fd) }
            state.fd = nil
        }
    }

    /// Appends one line; a failure is counted and logged, never thrown.
    func record(_ entry: Entry) {
        guard var line = try? encoder.encode(entry) else { return }
        line.append(0x0A)
        // nil: written; "": failed again (already logged); otherwise the first failure.
        let (failure, recovered) = state.withLock { state -> (String?, Bool) in
            guard let fd = state.fd else { return (nil, false) }
            // One write call per line: concurrent bots never interleave inside a line.
            let written = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard written == line.count else {
                let reason = written < 0 ? SystemError.text() : "only \(written) of \(line.count) bytes written"
                defer { state.failing = true }
                return (state.failing ? "" : reason, false)
            }
            defer { state.failing = false }
            return (nil, state.failing)
        }
        if recovered { logger.notice("the audit log \(path ?? "") is written again") }
        guard let failure else { return }
        metrics.auditFailed()
        if !failure.isEmpty {
            logger.error("cannot write the audit log \(path ?? ""): \(failure); audit lines are counted in "
                         + "switchboard_runner_audit_failures_total until it works again")
        }
    }
}
