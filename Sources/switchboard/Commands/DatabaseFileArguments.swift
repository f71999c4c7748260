import Foundation
import IMStore

/// What `backup` and `restore` are given: the server's data folder (`--data`) and one
/// database file (`--to` or `--from`), both required.
struct DatabaseFileArguments {
    var data: String
    var file: String

    /// Reads `--data` and the file option `option`; `meaning` says what the file is, for
    /// the usage error when it is missing.
    init(_ arguments: Arguments, file option: String, meaning: String) throws {
        guard let data = arguments[option: "data"] else {
            throw UsageError(message: "--data DIR is needed: the server's data folder")
        }
        guard let file = arguments[option: option] else { throw UsageError(message: "--\(option) FILE is needed: \(meaning)") }
        guard arguments.positionals.isEmpty else {
            throw UsageError(message: "unexpected argument '\(arguments.positionals[0])'")
        }
        self.data = data
        self.file = file
    }
}

extension DatabaseBackup.Summary {
    /// `schema version 3, 12 accounts, 3456 messages, 1.2 MiB`.
    var described: String {
        let size = bytes < 1 << 20 ? "\((bytes + 1023) / 1024) KiB" : String(format: "%.1f MiB", Double(bytes) / Double(1 << 20))
        return "schema version \(schemaVersion), \(accounts) accounts, \(messages) messages, \(size)"
    }
}
