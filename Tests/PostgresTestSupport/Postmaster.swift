import Foundation
import Synchronization

/// A running `postgres` server process.
///
/// It is started from a thread that lives exactly as long as the server, because the
/// parent-death signal fires when the thread that started the child ends, not the process.
final class Postmaster: Sendable {
    let pid: pid_t
    private let exited = ExitFlag()

    /// Starts `command` in `folder`, its output written to `log` (emptied first unless `appending`).
    init(_ command: [String], log: String, folder: String, appending: Bool = false) throws {
        guard appending || FileManager.default.createFile(atPath: log, contents: nil) else {
            throw PostgresTestError("cannot write \(log)")
        }
        let started = Mutex<Result<pid_t, any Error>?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let exited = exited
        let thread = Thread {
            let pid: pid_t
            do {
                pid = try ChildSpawn.start(
                    command[0], Array(command.dropFirst()), directory: folder, standardOutput: .file(log),
                    standardError: .file(log))
            } catch {
                started.withLock { $0 = .failure(error) }
                ready.signal()
                return
            }
            started.withLock { $0 = .success(pid) }
            ready.signal()
            _ = ChildSpawn.waitBlocking(pid)
            exited.value.store(true, ordering: .releasing)
        }
        thread.name = "postgres-test-server"
        thread.start()
        ready.wait()
        guard let outcome = started.withLock({ $0 }) else { throw PostgresTestError("the server's thread did not start it") }
        pid = try outcome.get()
    }

    var hasExited: Bool { exited.value.load(ordering: .acquiring) }

    private final class ExitFlag: Sendable {
        let value = Atomic<Bool>(false)
    }
}

/// Stops the process's test clusters when it exits normally and removes their folders.
enum ExitCleanup {
    private static let clusters = Mutex<[(pid: pid_t, folder: String)]>([])
    private static let registered = Atomic<Bool>(false)

    /// Registers the server of `folder`, replacing the one registered before (a restart).
    static func register(pid: pid_t, folder: String) {
        clusters.withLock { clusters in
            clusters.removeAll { $0.folder == folder }
            clusters.append((pid, folder))
        }
        if !registered.exchange(true, ordering: .relaxed) {
            atexit { ExitCleanup.stopAll() }
        }
    }

    /// Asks each server for a fast shutdown, waits (at most 10 s) for it to remove its
    /// `postmaster.pid`, which it does last, then removes the folder.
    static func stopAll() {
        for cluster in clusters.withLock({ $0 }) {
            kill(cluster.pid, SIGINT)
            for _ in 0..<500 where FileManager.default.fileExists(atPath: cluster.folder + "/data/postmaster.pid") {
                usleep(20_000)
            }
            try? FileManager.default.removeItem(atPath: cluster.folder)
        }
    }
}
