import Foundation

/// A process told apart from a later one that reuses its id: the id and its start time.
struct ProcessIdentity: CustomStringConvertible, Equatable {
    var pid: pid_t
    var startTime: String

    static var current: ProcessIdentity {
        ProcessIdentity(pid: getpid(), startTime: startTime(of: getpid()) ?? "")
    }

    init(pid: pid_t, startTime: String) {
        self.pid = pid
        self.startTime = startTime
    }

    init?(_ text: String) {
        let parts = text.split(separator: " ")
        guard parts.count == 2, let pid = pid_t(parts[0]) else { return nil }
        self.init(pid: pid, startTime: String(parts[1]))
    }

    var description: String { "\(pid) \(startTime)" }

    var isAlive: Bool { Self.startTime(of: pid) == startTime }

    /// Field 22 of `/proc/<pid>/stat` (clock ticks after boot), or nil when it is gone.
    static func startTime(of pid: pid_t) -> String? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // Fields after the command name (which may hold spaces) start at field 3.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 19 ? String(fields[19]) : nil
    }
}
