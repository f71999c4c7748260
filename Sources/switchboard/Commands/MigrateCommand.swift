import Foundation
import IMServer

/// `switchboard migrate`: moves a server's SQLite database into PostgreSQL.
struct MigrateCommand: Command {
    static let name = "migrate"
    static let summary = "move a server's SQLite database into an empty PostgreSQL database"
    static let help = """
        usage: switchboard migrate --from DIR --to postgres://USER@HOST:PORT/DATABASE

        Copies everything in the data folder DIR (its switchboard.sqlite) into the PostgreSQL
        database: accounts, logins, contacts, groups, rooms, invites, messages, media and the
        event feeds with their positions and epoch, so clients' cursors and logins go on
        working. The database must be empty (its schema is created); the copy is one
        transaction, so a failure leaves it empty. Stop the server first: what it writes
        during the copy would not be moved. Then start the server nodes with
        --store (or server.store:) set to the same URL (docs/operations.md).

        The password comes from PGPASSWORD or ~/.pgpass rather than the URL.

        exit codes: 0 moved, 1 failure (nothing written), 2 usage
        """
    static let options: Set<String> = ["from", "to"]
    static let flags: Set<String> = []

    var from: String
    var to: String

    init(arguments: Arguments) throws {
        guard let from = arguments[option: "from"], let to = arguments[option: "to"] else {
            throw UsageError(message: "give the data folder and the database: --from DIR --to postgres://…")
        }
        guard case .postgres = StoreLocation(to) else {
            throw UsageError(message: "--to '\(ServerFileConfig.redacted(to))' is not a postgres:// URL")
        }
        guard arguments.positionals.isEmpty else {
            throw UsageError(message: "unexpected argument '\(arguments.positionals[0])'")
        }
        self.from = from
        self.to = to
    }

    func run() async throws -> Int32 {
        let report = try await StoreMigration.sqliteToPostgres(dataDirectory: from, url: to)
        for (table, count) in report.rows { printOutput("\(table): \(count) rows") }
        printOutput(
            "moved \(from) to \(ServerFileConfig.redacted(to)): epoch \(report.epoch), feed position \(report.position)")
        return ExitCode.ok
    }
}
