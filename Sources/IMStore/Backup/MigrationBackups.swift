import Foundation

/// The copies of a database taken before schema migrations: `<name>-v<version>.sqlite`
/// beside `<name>.sqlite`, each the database as it was at that version.
struct MigrationBackups {
    /// The database file.
    var database: String

    private var folder: String { (database as NSString).deletingLastPathComponent }
    private var stem: String { ((database as NSString).lastPathComponent as NSString).deletingPathExtension }

    /// The copy of the database at `version`.
    func path(version: Int) -> String {
        (folder.isEmpty ? "" : folder + "/") + "\(stem)-v\(version).sqlite"
    }

    /// The versions that have a copy, newest first.
    func versions() -> [Int] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? []
        let prefix = stem + "-v"
        return names.compactMap { name -> Int? in
            guard name.hasPrefix(prefix), name.hasSuffix(".sqlite") else { return nil }
            return Int(name.dropFirst(prefix.count).dropLast(".sqlite".count))
        }.sorted(by: >)
    }

    /// Copies the database (open on `connection`, at `version`) to its versioned name,
    /// written beside and renamed, then removes all but the `newest` copies.
    func keep(_ connection: SQLiteConnection, version: Int, newest: Int) throws {
        do {
            try FileReplacement.replace(path(version: version), label: "partial") { try connection.copyDatabase(to: $0) }
        } catch {
            throw StoreError.internalFailure(
                "cannot keep a copy of \(database) before migrating it (\(error)); nothing was migrated")
        }
        for old in versions().dropFirst(newest) {
            try? FileManager.default.removeItem(atPath: path(version: old))
        }
    }
}
