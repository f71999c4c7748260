import Foundation
import IMStore

/// `switchboard backup`: a consistent copy of a server's database, taken while it runs.
struct BackupCommand: Command {
    static let name = "backup"
    static let summary = "copy the server's database into a backup file (while it runs)"
    static let help = """
        usage: switchboard backup --data DIR --to FILE

        Copies the database of the data folder DIR (DIR/switchboard.sqlite) into FILE with
        SQLite's online backup: one consistent snapshot, taken while the server goes on
        serving and writing. FILE is one file (no -wal beside it), checked before it is
        kept, and written beside itself and renamed: it holds the previous backup or the
        whole new one, never a part. Run it as the user the server runs as.

        options:
          --data DIR   the server's data folder
          --to FILE    the backup file; an existing one is replaced

        exit codes: 0 backed up, 1 failed (nothing replaced), 2 usage
        """
    static let options: Set<String> = ["data", "to"]
    static let flags: Set<String> = []

    var data: String
    var file: String

    init(arguments: Arguments) throws {
        guard let data = arguments[option: "data"] else { throw UsageError(message: "--data DIR is needed: the server's data folder") }
        guard let file = arguments[option: "to"] else { throw UsageError(message: "--to FILE is needed: where the backup goes") }
        guard arguments.positionals.isEmpty else {
            throw UsageError(message: "unexpected argument '\(arguments.positionals[0])'")
        }
        self.data = data
        self.file = file
    }

    func run() async throws -> Int32 {
        let summary = try await DatabaseBackup.backUp(directory: data, to: file)
        printOutput("backed up \(SQLiteStore.databasePath(in: data)) to \(file): \(summary.described)")
        return ExitCode.ok
    }
}

extension DatabaseBackup.Summary {
    /// `schema version 3, 12 accounts, 3,456 messages, 1.2 MiB`.
    var described: String {
        let size = bytes < 1 << 20 ? "\((bytes + 1023) / 1024) KiB" : String(format: "%.1f MiB", Double(bytes) / Double(1 << 20))
        return "schema version \(schemaVersion), \(accounts) accounts, \(messages) messages, \(size)"
    }
}
