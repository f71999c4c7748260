import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// An outside program a test starts and stops, its output going to a log file.
///
/// `@unchecked Sendable`: `Process` is only touched to start it (in `init`, before the
/// value is shared) and through `isRunning`, `processIdentifier` and `terminate`, which
/// Foundation documents as safe from any thread.
final class ChildProcess: @unchecked Sendable {
    private let process = Process()
    let logPath: String

    /// Starts `executable` with `arguments`; stdout and stderr go to `log`.
    init(_ executable: String, arguments: [String], log: String) throws {
        logPath = log
        FileManager.default.createFile(atPath: log, contents: nil)
        guard let output = FileHandle(forWritingAtPath: log) else { throw TestFailure("cannot write \(log)") }
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    var isRunning: Bool { process.isRunning }

    /// Waits for the program to exit by itself (for at most `guardTime`); its exit status.
    func exitStatus(guardTime: Duration = .seconds(60)) async throws -> Int32 {
        try await poll("\(process.executableURL?.lastPathComponent ?? "a program") to exit", guardTime: guardTime) {
            !self.process.isRunning
        }
        return process.terminationStatus
    }

    /// SIGTERM, then SIGKILL if it has not exited within 10 s; returns once it has exited.
    func stop() async {
        guard process.isRunning else { return }
        process.terminate()
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(10)
        while process.isRunning, clock.now < deadline {
            try? await clock.sleep(for: .milliseconds(20))
        }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            while process.isRunning { try? await clock.sleep(for: .milliseconds(20)) }
        }
    }

    /// The last 30 lines of the log.
    func logTail() -> String {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(30).joined(separator: "\n")
    }
}
