#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Lifecycle
import Logging

/// Where a command's log lines go: standard error, or the `log_file` of the config (or
/// `--log-file`), which SIGHUP reopens so that logrotate can move it away.
///
/// The SIGHUP watcher is one of its own: it coexists with a command's other SIGHUP
/// work (the runner's reload), and both hear every signal.
final class ProcessLog: Sendable {
    let level: LogLevel
    private let sink: FileLogSink
    private let hangup: SignalSource

    /// The log of `config`: `override` (a `--log-file` path, relative to the working
    /// folder) or `log_file` (relative to the config file's folder), else standard error.
    init(config: ConfigFile, directory: String, level: LogLevel, override: String?) throws {
        self.level = level
        let path = override ?? config.logFile.map { $0.hasPrefix("/") ? $0 : (directory as NSString).appendingPathComponent($0) }
        var file = LogFile.standardError
        if let path {
            do {
                file = try LogFile(path: path)
            } catch {
                throw ConfigurationError(error.description)
            }
        }
        let sink = FileLogSink(file)
        self.sink = sink
        let logger = Logger(label: "log", level: level, sink: sink)
        // Watched also without a file: SIGHUP (systemd's reload) must not end the process.
        hangup = SignalSource(SIGHUP) { [file] in
            guard let path = file.path else { return }
            do {
                try file.reopen()
                logger.info("SIGHUP: reopened the log file \(path)")
            } catch {
                // Still writing to the old file, which is where this line goes.
                logger.error("SIGHUP: \(error); still writing to the file that was there")
            }
        }
    }

    /// A logger for one part of the process.
    func logger(_ label: String) -> Logger { Logger(label: label, level: level, sink: sink) }

    /// Stops watching SIGHUP.
    /// Returns once SIGHUP is watched (before that, one would be lost).
    func armed() async { await hangup.armed() }

    func close() { hangup.cancel() }

    deinit { close() }
}
