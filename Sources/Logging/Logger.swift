#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// How much a log line matters.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    case trace, debug, info, notice, warning, error

    public init?(name: String) {
        guard let level = LogLevel.allCases.first(where: { $0.description == name.lowercased() }) else {
            return nil
        }
        self = level
    }

    public var description: String {
        switch self {
        case .trace: "trace"
        case .debug: "debug"
        case .info: "info"
        case .notice: "notice"
        case .warning: "warning"
        case .error: "error"
        }
    }

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Where log lines go. Implementations must be safe to call from any thread.
public protocol LogSink: Sendable {
    func write(level: LogLevel, label: String, message: String, metadata: [(String, String)])
}

/// A labelled logger with a minimum level; cheap to copy.
public struct Logger: Sendable {
    public var label: String
    public var level: LogLevel
    public var sink: any LogSink

    public init(label: String, level: LogLevel = .info, sink: any LogSink = FileLogSink.standardError) {
        self.label = label
        self.level = level
        self.sink = sink
    }

    /// A logger for a part of the program, sharing level and sink.
    public func child(_ label: String) -> Logger {
        Logger(label: label, level: level, sink: sink)
    }

    @inlinable
    public func log(_ level: LogLevel, _ message: @autoclosure () -> String, _ metadata: [(String, String)] = []) {
        guard level >= self.level else { return }
        sink.write(level: level, label: label, message: message(), metadata: metadata)
    }

    @inlinable public func trace(_ message: @autoclosure () -> String, _ metadata: [(String, String)] = []) {
        log(.trace, message(), metadata)
    }
    @inlinable public func debug(_ message: @autoclosure () -> String, _ metadata: [(String, String)] = []) {
        log(.debug, message(), metadata)
    }
    @inlinable public func info(_ message: @autoclosure () -> String, _ metadata: [(String, String)] = []) {
        log(.info, message(), metadata)
    }
    @inlinable public func notice(_ message: @autoclosure () -> String, _ metadata: [(String, String)] = []) {
        log(.notice, message(), metadata)
    }
    @inlinable public func warning(_ message: @autoclosure () -> String, _ metadata: [(String, String)] = []) {
        log(.warning, message(), metadata)
    }
    @inlinable public func error(_ message: @autoclosure () -> String, _ metadata: [(String, String)] = []) {
        log(.error, message(), metadata)
    }
}

/// Writes `2026-11-29T16:16:50.123Z info server: message key=value` lines to a
/// `LogFile`: standard error by default, or a file reopened on SIGHUP for rotation.
public final class FileLogSink: LogSink {
    /// Standard error.
    public static let standardError = FileLogSink(.standardError)

    public let file: LogFile

    public init(_ file: LogFile) { self.file = file }

    /// Every field is written through `LogText.escaped`: text a client sent (a path with
    /// `%0A` in it, a name) can never start a line of its own or hide what follows.
    public func write(level: LogLevel, label: String, message: String, metadata: [(String, String)]) {
        var line = "\(LogClock.now()) \(level) \(LogText.escaped(label)): \(LogText.escaped(message))"
        for (key, value) in metadata {
            line += " \(LogText.escaped(key))=\(LogText.value(value))"
        }
        line += "\n"
        // A line that cannot be written has nowhere to be reported: it is dropped.
        try? file.append(line)
    }
}

/// Keeps every line in memory; for tests that check what was logged.
public final class MemoryLogSink: LogSink {
    /// One captured line.
    public struct Entry: Sendable {
        public var level: LogLevel
        public var label: String
        public var message: String
        public var metadata: [(String, String)]
    }

    private let entries = Mutex<[Entry]>([])

    public init() {}

    public func write(level: LogLevel, label: String, message: String, metadata: [(String, String)]) {
        entries.withLock { $0.append(Entry(level: level, label: label, message: message, metadata: metadata)) }
    }

    /// Everything logged so far.
    public var lines: [Entry] { entries.withLock { $0 } }
}

enum LogClock {
    /// UTC time with milliseconds, formatted without Foundation.
    static func now() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        var seconds = spec.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(Int(parts.tm_year) + 1900, 4))-\(pad(Int(parts.tm_mon) + 1, 2))-\(pad(Int(parts.tm_mday), 2))T"
            + "\(pad(Int(parts.tm_hour), 2)):\(pad(Int(parts.tm_min), 2)):\(pad(Int(parts.tm_sec), 2))."
            + "\(pad(Int(spec.tv_nsec) / 1_000_000, 3))Z"
    }
}
