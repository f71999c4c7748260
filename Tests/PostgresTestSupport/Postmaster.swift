import Foundation
import Synchronization

/// The account the test server runs as: `postgres` when the tests run as root (initdb
/// refuses root), else the current user.
struct ServerAccount {
    /// User and group ids to switch to, or nil to stay who we are.
    var ids: (uid: uid_t, gid: gid_t)?

    static func current() throws -> ServerAccount {
        guard getuid() == 0 else { return ServerAccount(ids: nil) }
        guard let entry = getpwnam("postgres") else {
            throw PostgresTestError("running as root, and there is no postgres user to run the server as (install Debian's postgresql)")
        }
        return ServerAccount(ids: (entry.pointee.pw_uid, entry.pointee.pw_gid))
    }

    /// Hands files over to the server's account.
    func give(_ paths: String...) throws {
        guard let ids else { return }
        for path in paths where chown(path, ids.uid, ids.gid) != 0 {
            throw PostgresTestError("chown \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// The command line of the long-running server: through `setpriv`, which switches to
    /// the account and sets a parent-death signal (SIGINT, PostgreSQL's fast shutdown)
    /// before starting it, with no process in between.
    func command(_ executable: String, _ arguments: [String]) -> [String] {
        var command = ["/usr/bin/setpriv"]
        if let ids { command += ["--reuid=\(ids.uid)", "--regid=\(ids.gid)", "--init-groups"] }
        return command + ["--pdeathsig", "SIGINT", "--", executable] + arguments
    }

    /// Runs a one-off program (`initdb`) as the account and waits for it; throws with its
    /// output when it fails.
    func run(_ executable: String, _ arguments: [String], in folder: String) throws {
        let process = Process()
        if ids != nil {
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
            process.arguments = ["-u", "postgres", "--", executable] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        }
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = String(decoding: printed, as: UTF8.self)
            throw PostgresTestError("\(executable) exited with \(process.terminationStatus):\n\(text.suffix(2000))")
        }
    }
}

/// A running `postgres` server process.
///
/// It is started from a thread that lives exactly as long as the server, because the
/// parent-death signal fires when the thread that started the child ends, not the process.
final class Postmaster: Sendable {
    let pid: pid_t
    private let exited = ExitFlag()

    init(_ command: [String], log: String, folder: String) throws {
        guard FileManager.default.createFile(atPath: log, contents: nil),
            let logHandle = FileHandle(forWritingAtPath: log)
        else { throw PostgresTestError("cannot write \(log)") }
        let started = Mutex<Result<pid_t, any Error>?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let exited = exited
        let thread = Thread {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: command[0])
            process.arguments = Array(command.dropFirst())
            process.currentDirectoryURL = URL(fileURLWithPath: folder)
            process.standardOutput = logHandle
            process.standardError = logHandle
            let ended = DispatchSemaphore(value: 0)
            process.terminationHandler = { _ in ended.signal() }
            do {
                try process.run()
            } catch {
                started.withLock { $0 = .failure(error) }
                ready.signal()
                return
            }
            started.withLock { $0 = .success(process.processIdentifier) }
            ready.signal()
            ended.wait()
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

    static func register(pid: pid_t, folder: String) {
        clusters.withLock { $0.append((pid, folder)) }
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
