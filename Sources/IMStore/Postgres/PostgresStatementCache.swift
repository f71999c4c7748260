/// The named prepared statements of one connection, by SQL and parameter types; the
/// least recently used is dropped when it is full.
struct PostgresStatementCache {
    struct Key: Hashable {
        var sql: String
        var types: [UInt32]
    }

    let capacity: Int
    private var entries: [Key: (name: String, lastUse: UInt64)] = [:]
    private var uses: UInt64 = 0
    private var created = 0

    init(capacity: Int) { self.capacity = capacity }

    var count: Int { entries.count }

    /// The statement's name when it is prepared, marking it used.
    mutating func name(for key: Key) -> String? {
        guard let entry = entries[key] else { return nil }
        uses += 1
        entries[key] = (entry.name, uses)
        return entry.name
    }

    /// A name for a statement about to be prepared (never used before on this connection).
    mutating func newName() -> String {
        created += 1
        return "sb_\(created)"
    }

    /// Records a prepared statement; returns the name of the one it pushed out, which the
    /// caller deallocates.
    mutating func insert(_ key: Key, name: String) -> String? {
        uses += 1
        entries[key] = (name, uses)
        guard entries.count > capacity, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse }) else {
            return nil
        }
        entries[oldest.key] = nil
        return oldest.value.name
    }

    /// Forgets a statement the server no longer has or can no longer run.
    mutating func remove(_ key: Key) { entries[key] = nil }
}
