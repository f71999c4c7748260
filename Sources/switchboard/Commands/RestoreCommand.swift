import Foundation
import IMStore

/// `switchboard restore`: a backup made the server's database again.
struct RestoreCommand: Command {
    static let name = "restore"
    static let summary = "make a backup file the server's database (server stopped)"
    static let help = """
        usage: switchboard restore --data DIR --from FILE

        Makes the backup FILE the database of the data folder DIR (created when missing).
        Refused while a server runs on DIR: stop it first. Before anything is replaced,
        FILE must be a whole Switchboard database of a schema version this program knows
        (an older one is migrated when the server starts); anything else is refused. FILE
        is copied beside the database and renamed over it, so the folder holds the old
        database or the whole backup, never a part; the database it replaces is kept
        beside it as switchboard.before-restore-<time>.sqlite.

        Clients whose cursor is from before the backup read on; a cursor from after it
        (events the restore undid) gets 410 CURSOR_EXPIRED, and its client re-syncs.

        options:
          --data DIR   the server's data folder
          --from FILE  the backup (from 'switchboard backup', or a switchboard-vN.sqlite
                       kept before a migration)

        exit codes: 0 restored, 1 refused or failed (nothing replaced), 2 usage
        """
    static let options: Set<String> = ["data", "from"]
    static let flags: Set<String> = []

    var target: DatabaseFileArguments

    init(arguments: Arguments) throws {
        target = try DatabaseFileArguments(arguments, file: "from", meaning: "the backup to restore")
    }

    func run() async throws -> Int32 {
        let restored = try await DatabaseBackup.restore(from: target.file, into: target.data)
        printOutput("restored \(target.file) into \(target.data): \(restored.backup.described)")
        if let previous = restored.previous { printOutput("the database it replaced is kept as \(previous)") }
        return ExitCode.ok
    }
}
