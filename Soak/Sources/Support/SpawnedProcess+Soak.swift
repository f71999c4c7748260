import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// What the scenarios need of the tests' spawner: output kept in a log file across
/// restarts, waits with a bound, kills that wait, and the child's memory.
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

    /// Waits for the program to exit by itself, for at most `patience`; its status.
    func waitForExit(patience: Duration) async throws -> Int32 {
        let clock = ContinuousClock()
        let deadline = clock.now + patience
        while clock.now < deadline {
            if let status = exitStatus { return status }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw SoakFailure("process \(pid) did not exit within \(patience)")
    }

    /// Sends `number` (SIGKILL by default) unless it has exited, and waits for the exit.
    @discardableResult
    func kill(_ number: Int32 = SIGKILL, patience: Duration = .seconds(30)) async throws -> Int32 {
        signal(number)
        return try await waitForExit(patience: patience)
    }

    /// Resident memory in KiB, from /proc; nil once it has exited.
    var residentKiB: Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        let line = text.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
        return line.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") }
    }
}
