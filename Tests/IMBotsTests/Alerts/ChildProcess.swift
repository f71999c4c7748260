import Foundation
import Synchronization
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// An outside program a test starts and stops, its output going to a log file.
///
/// Started with `posix_spawn` rather than Foundation's `Process`, whose `run()` crashed
/// (a bad `memmove`) while other tests opened and closed sockets at the same time; the
/// child gets stdin from /dev/null, stdout and stderr in the log, and none of the test
/// process's other descriptors (so it cannot keep their sockets open).
final class ChildProcess: Sendable {
    let pid: pid_t
    let logPath: String
    /// The exit status once reaped, so `waitpid` is called until, and never after, that.
    private let exit = Mutex<Int32?>(nil)

    /// Starts `executable` with `arguments`.
    init(_ executable: String, arguments: [String], log: String) throws {
        logPath = log
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        _ = spawnClosesFrom(&actions, 3)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, nil, argv, environ)
        guard result == 0 else {
            throw TestFailure("cannot start \(executable): \(String(cString: strerror(result)))")
        }
        pid = child
    }

    /// Whether it has not exited yet (reaps it when it has).
    var isRunning: Bool { reap() == nil }

    /// The exit status when it has exited: the code, or 128 + the signal that ended it.
    private func reap() -> Int32? {
        exit.withLock { status in
            if let status { return status }
            var raw: Int32 = 0
            guard waitpid(pid, &raw, WNOHANG) == pid else { return nil }
            let signal = raw & 0x7F
            status = signal == 0 ? (raw >> 8) & 0xFF : 128 + signal
            return status
        }
    }

    /// Waits for the program to exit by itself (for at most `guardTime`); its exit status.
    func exitStatus(guardTime: Duration = .seconds(60)) async throws -> Int32 {
        try await poll("process \(pid) to exit", guardTime: guardTime) { self.reap() != nil }
        return reap() ?? -1
    }

    /// SIGTERM, then SIGKILL if it has not exited within 10 s; returns once it has exited.
    func stop() async {
        guard isRunning else { return }
        kill(pid, SIGTERM)
        if (try? await exitStatus(guardTime: .seconds(10))) == nil {
            kill(pid, SIGKILL)
            _ = try? await exitStatus(guardTime: .seconds(60))
        }
    }

    /// The last 30 lines of the log.
    func logTail() -> String {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(30).joined(separator: "\n")
    }
}

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later): the child closes
/// every descriptor from the given one up. Swift's Glibc module leaves this GNU extension
/// out, so it is declared here with its C signature (a pointer and an `int`, returning an
/// `int`), which Swift calls with the C convention for such arguments.
@_silgen_name("posix_spawn_file_actions_addclosefrom_np")
private func spawnClosesFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ from: Int32) -> Int32
