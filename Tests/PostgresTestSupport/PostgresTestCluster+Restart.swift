import Foundation

extension PostgresTestCluster {
    /// The folder of PostgreSQL's programs (`initdb`, `postgres`, `pg_amcheck`):
    /// `SWITCHBOARD_POSTGRES_BIN`, else the newest under `/usr/lib/postgresql`.
    public static func binaryDirectory() throws -> String { try ClusterLauncher.binaryDirectory() }

    /// Stops the server and returns once it has exited. `immediate` is PostgreSQL's
    /// immediate shutdown (SIGQUIT: no checkpoint, so the next start recovers from the
    /// write-ahead log, as after a crash); otherwise a fast shutdown (SIGINT). Sessions
    /// connected to it are cut either way.
    public func stopServer(immediate: Bool, patience: Duration = .seconds(60)) async throws {
        let postmaster = server.withLock { $0 }
        guard !postmaster.hasExited else { return }
        kill(postmaster.pid, immediate ? SIGQUIT : SIGINT)
        let deadline = ContinuousClock.now + patience
        while !postmaster.hasExited {
            guard ContinuousClock.now < deadline else {
                throw PostgresTestError("postgres (pid \(postmaster.pid)) did not stop within \(patience)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Starts the server again on the same folder and port after ``stopServer(immediate:patience:)``;
    /// returns once it accepts logins.
    public func startServer() async throws {
        guard server.withLock({ $0.hasExited }) else { throw PostgresTestError("postgres still runs") }
        let log = folder + "/postgres.log"
        let started: Postmaster = try await withCheckedThrowingContinuation { continuation in
            // The wait for the first login blocks: a thread of its own, not the cooperative pool.
            let thread = Thread { [self] in
                continuation.resume(with: Result {
                    let postmaster = try Postmaster(command, log: log, folder: folder, appending: true)
                    guard try ClusterLauncher.waitUntilReady(port: port, password: password, server: postmaster) else {
                        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                        throw PostgresTestError("postgres did not start again; its log:\n\(text.suffix(2000))")
                    }
                    return postmaster
                })
            }
            thread.name = "postgres-test-restart"
            thread.start()
        }
        server.withLock { $0 = started }
        ExitCleanup.register(pid: started.pid, folder: folder)
    }
}
