import Foundation

/// Where the server under test keeps its data. The scenarios take it as a parameter
/// (`--store`), so that each runs unchanged on another store once the server has one.
protocol SoakStore: Sendable {
    /// How reports name it.
    var name: String { get }
    /// Makes it ready (a database server started), before the first administrator.
    func prepare() async throws
    /// Whether the database is a process of its own the scenarios can restart
    /// (``stopDatabase()``, ``startDatabase()``); SQLite lives in the server's files.
    var restartable: Bool { get }
    /// The `server:` keys that put the server's data in this store, as YAML lines.
    var serverSettings: [String] { get }
    /// Makes the first administrator, the way an operator does (nothing over HTTP grants
    /// administration), before the server starts.
    func makeAdministrator(_ username: String, password: String, binary: String) async throws
    /// What is wrong with the stored data, checked while the server is down; nil when sound.
    func integrityProblem() async -> String?
    /// Stops the database as a crash would.
    func stopDatabase() async throws
    /// Starts it again on the same data; returns once it takes logins.
    func startDatabase() async throws
}

extension SoakStore {
    var restartable: Bool { false }
    func prepare() async throws {}
    func stopDatabase() async throws { throw SoakFailure("the \(name) store has no database of its own to stop") }
    func startDatabase() async throws { throw SoakFailure("the \(name) store has no database of its own to start") }
}

/// The embedded store: one SQLite database in the data folder.
struct SQLiteSoakStore: SoakStore {
    let directory: String

    var name: String { "sqlite" }
    var serverSettings: [String] { ["data: \(directory)"] }
    var databasePath: String { directory + "/switchboard.sqlite" }

    /// `switchboard user add NAME --admin --data DIR`.
    func makeAdministrator(_ username: String, password: String, binary: String) async throws {
        try await command(binary, ["user", "add", username, "--admin", "--data", directory],
                          environment: ["SWITCHBOARD_NEW_PASSWORD": password])
    }

    /// SQLite's own check of every page and index (`PRAGMA integrity_check`), run by the
    /// `sqlite3` program on the files as the crash left them (the write-ahead log included).
    func integrityProblem() async -> String? {
        guard FileManager.default.fileExists(atPath: databasePath) else { return "no database at \(databasePath)" }
        do {
            let text = try await command("/usr/bin/sqlite3", [databasePath, "PRAGMA integrity_check"], patience: .seconds(300))
            let verdict = text.trimmingCharacters(in: .whitespacesAndNewlines)
            return verdict == "ok" ? nil : "integrity_check: \(verdict.prefix(500))"
        } catch {
            return "integrity_check: \(error)"
        }
    }
}

enum SoakStores {
    /// The store `--store` names: `sqlite` (a data folder under `work`), or `postgres` (a
    /// private PostgreSQL cluster of the run's own, which it can restart).
    static func make(_ text: String, work: String) throws -> any SoakStore {
        switch text {
        case "sqlite": SQLiteSoakStore(directory: work + "/data")
        case "postgres": PostgresSoakStore()
        default: throw SoakFailure("--store \(text): use sqlite or postgres")
        }
    }
}
