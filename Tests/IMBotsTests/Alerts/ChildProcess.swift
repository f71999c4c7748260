import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// An outside program a test starts and stops (Alertmanager, amtool), its output going to
/// a log file: a `SpawnedProcess` (standard input from /dev/null, none of the test
/// process's other descriptors, a clean signal state) with the log started afresh.
final class ChildProcess: Sendable {
    let logPath: String
    private let process: SpawnedProcess

    var pid: pid_t { process.pid }

    /// Starts `executable` with `arguments`, its standard output and error in `log`
    /// (emptied first).
    init(_ executable: String, arguments: [String], log: String) throws {
        logPath = log
        guard FileManager.default.createFile(atPath: log, contents: nil) else {
            throw TestFailure("cannot create the log \(log)")
        }
        process = try SpawnedProcess(executable, arguments, output: .appended(toFile: log))
    }

    /// Whether it has not exited yet.
    var isRunning: Bool { process.exitStatus == nil }

    /// Waits for the program to exit by itself (for at most `guardTime`); its exit status:
    /// the code, or 128 + the signal that ended it.
    func exitStatus(guardTime: Duration = .seconds(60)) async throws -> Int32 {
        try await withHangGuard("process \(pid) to exit", hangGuard: guardTime) { await self.process.waitForExit() }
    }

    /// SIGTERM, then SIGKILL if it has not exited within 10 s; returns once it has exited.
    func stop() async {
        _ = try? await process.stop(SIGTERM, hangGuard: .seconds(10))
    }

    /// The last 30 lines of the log.
    func logTail() -> String {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(30).joined(separator: "\n")
    }
}
