import Foundation
import PostgresTestSupport
import Synchronization

/// A running Synapse, started from a thread that lives exactly as long as it: the
/// parent-death signal (`setpriv --pdeathsig SIGTERM`) fires when the thread that
/// started the child ends, so a killed test process takes its homeserver with it.
final class SynapseProcess: Sendable {
    let pid: pid_t

    init(python: String, folder: String) throws {
        let command = ["/usr/bin/setpriv", "--pdeathsig", "SIGTERM", "--", python, "-m", "synapse.app.homeserver",
                       "--config-path", folder + "/homeserver.yaml"]
        let started = Mutex<Result<pid_t, any Error>?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let box = ExitBox()
        let thread = Thread {
            let pid: pid_t
            do {
                pid = try ChildSpawn.start(
                    command[0], Array(command.dropFirst()), environment: ["PATH": "/usr/bin:/bin", "HOME": folder,
                                                                          "PYTHONUNBUFFERED": "1"],
                    directory: folder, standardOutput: .file(folder + "/output.log"),
                    standardError: .file(folder + "/output.log"))
            } catch {
                started.withLock { $0 = .failure(error) }
                ready.signal()
                return
            }
            started.withLock { $0 = .success(pid) }
            ready.signal()
            _ = ChildSpawn.waitBlocking(pid)
            box.exited.store(true, ordering: .releasing)
        }
        thread.name = "synapse-test-server"
        thread.start()
        ready.wait()
        guard let outcome = started.withLock({ $0 }) else { throw SpawnError("Synapse's thread did not start it") }
        pid = try outcome.get()
        exitBox = box
    }

    private let exitBox: ExitBox

    var hasExited: Bool { exitBox.exited.load(ordering: .acquiring) }

    private final class ExitBox: Sendable {
        let exited = Atomic<Bool>(false)
    }
}

/// Stops the process's homeservers when it exits normally and removes their folders.
enum SynapseExit {
    private static let servers = Mutex<[(process: SynapseProcess, folder: String)]>([])
    private static let registered = Atomic<Bool>(false)

    static func register(_ process: SynapseProcess, folder: String) {
        servers.withLock { $0.append((process, folder)) }
        if !registered.exchange(true, ordering: .relaxed) {
            atexit { SynapseExit.stopAll() }
        }
    }

    /// The last `lines` lines of each running homeserver's log (warnings and worse), for a
    /// test that waited in vain to show what the homeserver was doing meanwhile.
    static func logTails(lines: Int = 40) -> String {
        servers.withLock { $0 }.map { server in
            let log = (try? String(contentsOfFile: server.folder + "/homeserver.log", encoding: .utf8)) ?? ""
            let tail = log.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
            return "homeserver.log of \(server.folder), last \(lines) lines:\n" + (tail.isEmpty ? "(empty)" : tail)
        }.joined(separator: "\n")
    }

    /// SIGTERM to each, waiting (at most 10 s each) for it to end, then removes its folder.
    static func stopAll() {
        for server in servers.withLock({ $0 }) {
            kill(server.process.pid, SIGTERM)
            for _ in 0..<500 where !server.process.hasExited { usleep(20_000) }
            try? FileManager.default.removeItem(atPath: server.folder)
        }
    }
}
