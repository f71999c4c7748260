import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A program the soak tests start, kill and restart, its output appended to a log file.
///
/// Started with `posix_spawn` (Foundation's `Process` is not safe to start while other
/// threads open and close sockets); the child gets no descriptor of this process but its
/// standard streams, so it holds none of the clients' sockets.
final class ChildProcess: @unchecked Sendable {
    // `status` is written only under `lock`.
    let pid: pid_t
    let command: String
    private let lock = NSLock()
    private var status: Int32?

    /// Starts `executable` with `arguments`, `environment` added to this process's own.
    init(_ executable: String, _ arguments: [String], log: String, environment: [String: String] = [:]) throws {
        command = ([executable] + arguments).joined(separator: " ")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        _ = closeFrom(&actions, 3)
        var merged = ProcessInfo.processInfo.environment
        merged.merge(environment) { _, given in given }
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, nil, argv, envp)
        guard result == 0 else {
            throw SoakFailure("cannot start \(executable): \(String(cString: strerror(result)))")
        }
        pid = child
    }

    /// Whether it has not exited yet (reaping it when it has).
    var isRunning: Bool { exitStatus == nil }

    /// The exit code, or 128 + the signal that ended it; nil while it runs.
    var exitStatus: Int32? {
        lock.lock()
        defer { lock.unlock() }
        if let status { return status }
        var raw: Int32 = 0
        guard waitpid(pid, &raw, WNOHANG) == pid else { return nil }
        let signal = raw & 0x7F
        status = signal == 0 ? (raw >> 8) & 0xFF : 128 + signal
        return status
    }

    /// Sends `signal` (SIGKILL by default) unless it has exited, and waits for the exit.
    @discardableResult
    func kill(_ signal: Int32 = SIGKILL, patience: Duration = .seconds(30)) async throws -> Int32 {
        if isRunning { Glibc.kill(pid, signal) }
        return try await waitForExit(patience: patience)
    }

    /// Waits for the program to exit by itself; its status.
    func waitForExit(patience: Duration) async throws -> Int32 {
        let clock = ContinuousClock()
        let deadline = clock.now + patience
        while clock.now < deadline {
            if let status = exitStatus { return status }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw SoakFailure("\(command) (pid \(pid)) did not exit within \(patience)")
    }

    /// Resident memory in KiB, from /proc; nil once it has exited.
    var residentKiB: Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        let line = text.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
        return line.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") }
    }
}

/// Why a soak scenario could not go on: its set-up failed, or what it checks broke.
struct SoakFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc
/// module leaves out: declared with its C signature (a pointer and an `int`, returning an
/// `int`), which Swift calls with the C convention for such arguments.
@_silgen_name("posix_spawn_file_actions_addclosefrom_np")
private func closeFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ from: Int32) -> Int32
