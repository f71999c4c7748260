import Foundation

/// Where the server under test keeps its data. The scenarios take it as a parameter
/// (`--store`), so that each runs unchanged on another store once the server has one.
protocol SoakStore: Sendable {
    /// How reports name it.
    var name: String { get }
    /// The `server:` keys that put the server's data in this store, as YAML lines.
    var serverSettings: [String] { get }
    /// Makes the first administrator, the way an operator does (nothing over HTTP grants
    /// administration), before the server starts.
    func makeAdministrator(_ username: String, password: String, binary: String) async throws
    /// What is wrong with the stored data, checked while the server is down; nil when sound.
    func integrityProblem() async -> String?
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
    /// The store `--store` names: `sqlite` (a data folder under `work`), or a PostgreSQL
    /// URL once the server can use one.
    static func make(_ text: String, work: String) throws -> any SoakStore {
        switch text {
        case "sqlite":
            return SQLiteSoakStore(directory: work + "/data")
        case let url where url.hasPrefix("postgres://") || url.hasPrefix("postgresql://"):
            throw SoakFailure("--store \(url): this server has no PostgreSQL store yet; the scenarios take one as a "
                + "SoakStore (its server settings, its first administrator, its integrity check) once `server.store` exists")
        default:
            throw SoakFailure("--store \(text): use sqlite or a postgres:// URL")
        }
    }
}
