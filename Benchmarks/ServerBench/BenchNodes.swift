import BenchSupport
import Foundation
import IMClient
import PostgresTestSupport

/// The `switchboard serve` processes a run measures: one on SQLite in a fresh data
/// folder, or `--nodes` of them on one fresh database of a private PostgreSQL cluster
/// with production durability (fsync and synchronous commit on), as several server nodes
/// of one deployment.
final class BenchNodes: @unchecked Sendable {
    // @unchecked: processes, ports and the database are changed only by the benchmark's
    // one driving task.
    let options: BenchOptions
    let directory: String
    private(set) var ports: [Int] = []
    private(set) var processes: [Process] = []
    private var cluster: PostgresTestCluster?
    private var database: String?

    init(options: BenchOptions, directory: String) {
        self.options = options
        self.directory = directory
    }

    var count: Int { options.store == "postgres" ? max(1, options.nodes) : 1 }

    func base(_ node: Int) -> String { "http://127.0.0.1:\(ports[node % ports.count])" }

    /// What the report says the servers run on.
    var describe: String {
        guard options.store == "postgres" else { return "SQLite, durability \(options.durability)" }
        return "\(count) node\(count == 1 ? "" : "s") on one local PostgreSQL database (fsync and synchronous commit on), "
            + "\(options.writers) writer session\(options.writers == 1 ? "" : "s") per node"
    }

    /// Starts the nodes (a cluster and a database first, for PostgreSQL) and waits until
    /// each answers.
    func start() async throws {
        var store: [String] = []
        if options.store == "postgres" {
            let cluster: PostgresTestCluster
            if let running = self.cluster {
                cluster = running
            } else {
                cluster = try await PostgresTestCluster.start(durable: true)
            }
            self.cluster = cluster
            let name = try await cluster.createDatabase()
            database = name
            store = ["--store", cluster.url(database: name)]
        }
        for _ in 0..<count {
            let port = ChildProcess.freePort()
            let config = """
                log_level: warning
                server:
                  listen: 127.0.0.1:\(port)
                  data: \(directory)/data
                  durability: \(options.durability)
                  max_connections: 30000
                  max_connections_per_address: 30000
                  password_hashing: { memory_kib: 256, iterations: 1, max_queued: 100000 }
                  login_limits: { in_flight_per_address: 100000, checks_per_address_per_minute: 1000000, checks_per_account_per_minute: 1000000 }
                  rate_limits: { enabled: false }
                  store_writers: \(options.writers)
                """
            let path = directory + "/config-\(port).yaml"
            try config.write(toFile: path, atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: options.binary)
            process.arguments = ["serve", "--config", path] + store
            try process.run()
            ports.append(port)
            processes.append(process)
            try await waitForHealth(port)
        }
    }

    private func waitForHealth(_ port: Int) async throws {
        let transport = CurlTransport()
        for _ in 0..<400 {
            let answer = try? await transport.send(
                TransportRequest(method: "GET", url: "http://127.0.0.1:\(port)/healthz", headers: [], body: nil, timeout: .seconds(5)))
            if answer?.status == 200 { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw BenchError("the server did not answer /healthz on port \(port)")
    }

    /// Stops the nodes and drops their data.
    func stop() async {
        for process in processes where process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        processes = []
        ports = []
        try? FileManager.default.removeItem(atPath: directory + "/data")
        if let cluster, let database {
            try? await cluster.dropDatabase(database)
            self.database = nil
        }
    }

    /// New nodes on empty data.
    func restart() async throws {
        await stop()
        try await start()
    }

    /// The nodes' user and system CPU time so far, in microseconds.
    var cpuMicroseconds: Int {
        Int(processes.map { ProcessStats.cpuSeconds(pid: $0.processIdentifier) }.reduce(0, +) * 1e6)
    }

    /// The PostgreSQL server's CPU time so far (0 on SQLite), in microseconds.
    var databaseCPUMicroseconds: Int {
        cluster.map { Int(ProcessStats.treeCPUSeconds(root: $0.serverPID) * 1e6) } ?? 0
    }

    /// The first node's resident memory in KiB.
    var rss: Int { processes.first.map { ProcessStats.rssKiB(pid: $0.processIdentifier) } ?? 0 }
}
