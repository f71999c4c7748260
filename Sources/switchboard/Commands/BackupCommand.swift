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

    var target: DatabaseFileArguments

    init(arguments: Arguments) throws {
        target = try DatabaseFileArguments(arguments, file: "to", meaning: "where the backup goes")
    }

    func run() async throws -> Int32 {
        let summary = try await DatabaseBackup.backUp(directory: target.data, to: target.file)
        printOutput("backed up \(SQLiteStore.databasePath(in: target.data)) to \(target.file): \(summary.described)")
        return ExitCode.ok
    }
}
