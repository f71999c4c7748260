import Foundation

/// Where the server under test keeps its data. The scenarios take it as a parameter
/// (`--store`), so that each runs unchanged on another store once the server has one.
protocol SoakStore: Sendable {
    /// How reports name it.
    var name: String { get }
    /// The `server:` keys that put the server's data in this store, as YAML lines.
    var serverSettings: [String] { get }
    /// What is wrong with the stored data, checked while the server is down; nil when sound.
    func integrityProblem() async -> String?
}

/// The embedded store: one SQLite database in the data folder.
struct SQLiteSoakStore: SoakStore {
    let directory: String

    var name: String { "sqlite" }
    var serverSettings: [String] { ["data: \(directory)"] }
    var databasePath: String { directory + "/switchboard.sqlite" }

    /// SQLite's own check of every page and index (`PRAGMA integrity_check`), run by the
    /// `sqlite3` program on the files as the crash left them (the write-ahead log included).
    func integrityProblem() async -> String? {
        guard FileManager.default.fileExists(atPath: databasePath) else { return "no database at \(databasePath)" }
        let output = directory + "/../integrity-check.txt"
        do {
            try? FileManager.default.removeItem(atPath: output)
            let check = try ChildProcess("/usr/bin/sqlite3", [databasePath, "PRAGMA integrity_check"], log: output)
            let status = try await check.waitForExit(patience: .seconds(300))
            let text = (try? String(contentsOfFile: output, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            return status == 0 && text == "ok" ? nil : "integrity_check: \(text.prefix(500)) (exit \(status))"
        } catch {
            return "integrity_check could not run: \(error)"
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
                + "SoakStore (its server settings, its integrity check) once `server.store` exists")
        default:
            throw SoakFailure("--store \(text): use sqlite or a postgres:// URL")
        }
    }
}
