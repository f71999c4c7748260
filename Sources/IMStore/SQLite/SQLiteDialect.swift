/// How SQLite reads the store's shared SQL (`StoreConnection`): once, when a statement is
/// prepared, `FOR UPDATE` goes (the one writer thread already runs every write alone)
/// and `COLLATE "C"` (byte order, which PostgreSQL has to be told) becomes SQLite's own
/// `COLLATE BINARY`. Placeholders are SQLite's own already.
enum SQLiteDialect {
    static func translate(_ sql: String) -> String {
        guard sql.contains("FOR UPDATE") || sql.contains("COLLATE \"C\"") else { return sql }
        return sql.replacingOccurrences(of: " FOR UPDATE", with: "")
            .replacingOccurrences(of: "FOR UPDATE", with: "")
            .replacingOccurrences(of: "COLLATE \"C\"", with: "COLLATE BINARY")
    }
}
