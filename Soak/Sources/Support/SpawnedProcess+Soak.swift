import Foundation
import TestSupport

/// What the scenarios add to the tests' spawner: output kept in a log file across
/// restarts, with the environment added to this process's own, and the child's memory.
extension SpawnedProcess {
    /// Starts `executable` with `arguments`, its output appended to `log` and `environment`
    /// added to this process's own.
    static func logging(to log: String, _ executable: String, _ arguments: [String],
                        environment: [String: String] = [:]) throws -> SpawnedProcess {
        var merged = ProcessInfo.processInfo.environment
        merged.merge(environment) { _, given in given }
        do {
            return try SpawnedProcess(executable, arguments, environment: merged, output: .appended(toFile: log))
        } catch {
            throw SoakFailure("\(error)")
        }
    }

    /// Whether it has not exited yet (reaping it when it has).
    var isRunning: Bool { exitStatus == nil }

    /// Resident memory in KiB, from /proc; nil once it has exited.
    var residentKiB: Int? {
        guard let text = procText("/proc/\(pid)/status") else { return nil }
        let line = text.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
        return line.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") }
    }
}
