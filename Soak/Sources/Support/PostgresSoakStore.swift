import Foundation
import PostgresTestSupport
import Synchronization

/// The PostgreSQL store: a private cluster of the run's own (the tests' `PostgresTestCluster`,
/// durable as in production: fsync and synchronous commit on), one empty database the
/// server migrates at its first start, and the cluster's server stopped and started again
/// under the running server.
final class PostgresSoakStore: SoakStore {
    private struct Database: Sendable {
        let cluster: PostgresTestCluster
        let url: String
    }

    private let database = Mutex<Database?>(nil)

    var name: String { "postgres" }
    var restartable: Bool { true }

    /// Starts the cluster and makes the database (once).
    func prepare() async throws {
        guard database.withLock({ $0 }) == nil else { return }
        let cluster = try await PostgresTestCluster.start(durable: true)
        let name = try await cluster.createDatabase()
        database.withLock { $0 = Database(cluster: cluster, url: cluster.url(database: name)) }
    }

    private func prepared() throws -> Database {
        guard let database = database.withLock({ $0 }) else { throw SoakFailure("the PostgreSQL store is not prepared") }
        return database
    }

    var serverSettings: [String] {
        let url = database.withLock { $0?.url } ?? ""
        return ["store: \"\(url)\""]
    }

    /// `switchboard user add NAME --admin --store URL`.
    func makeAdministrator(_ username: String, password: String, binary: String) async throws {
        try await command(binary, ["user", "add", username, "--admin", "--store", try prepared().url],
                          environment: ["SWITCHBOARD_NEW_PASSWORD": password])
    }

    /// `pg_amcheck` on the database: every table's pages and every B-tree index, each
    /// index checked against its table's rows, after the crash recovery of the last start.
    func integrityProblem() async -> String? {
        do {
            let database = try prepared()
            let program = try PostgresTestCluster.binaryDirectory() + "/pg_amcheck"
            let text = try await command(program, ["--install-missing", "--heapallindexed", "--no-strict-names",
                                                   database.url], environment: ["PGOPTIONS": "-c client_min_messages=warning"],
                                       accepting: [0, 2], patience: .seconds(300))
            let verdict = text.trimmingCharacters(in: .whitespacesAndNewlines)
            return verdict.isEmpty ? nil : "pg_amcheck: \(verdict.prefix(500))"
        } catch {
            return "pg_amcheck: \(error)"
        }
    }

    /// PostgreSQL's immediate shutdown: no checkpoint, crash recovery at the next start.
    func stopDatabase() async throws {
        try await prepared().cluster.stopServer(immediate: true)
    }

    func startDatabase() async throws {
        try await prepared().cluster.startServer()
    }
}
