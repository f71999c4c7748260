/// Which cursors a database accepts across restores.
///
/// A cursor names its database by the database's epoch (`v1.<epoch>.<user>.<position>`).
/// A restored backup goes on from the backup's last feed position, so positions after it
/// are handed out again for other events than the ones the lost timeline had there. A
/// restore therefore gives the database a new epoch and remembers the old one with the
/// backup's last position: a cursor of the old epoch up to that position names the same
/// events in both and reads on; one past it, from the timeline the restore undid, gets
/// 410 `CURSOR_EXPIRED` and its client re-syncs, instead of silently reading other events.
enum FeedEpochs {
    /// The `meta` key: `epoch:position` pairs separated by spaces, oldest first.
    static let key = "earlier_epochs"

    /// A new epoch.
    static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return String(UInt32.random(in: 1...UInt32.max, using: &generator), radix: 36)
    }

    /// The earlier epochs recorded in a database, with the last position each may name.
    static func earlier(in connection: SQLiteConnection) throws -> [String: Int64] {
        parse(try connection.first("SELECT value FROM meta WHERE key = ?", key, as: { $0.text(0) }))
    }

    /// The earlier epochs of a `meta` value of `key` (none for nil).
    static func parse(_ text: String?) -> [String: Int64] {
        guard let text else { return [:] }
        var epochs: [String: Int64] = [:]
        for pair in text.split(separator: " ") {
            let parts = pair.split(separator: ":")
            guard parts.count == 2, let position = Int64(parts[1]) else { continue }
            epochs[String(parts[0])] = position
        }
        return epochs
    }

    /// Gives the database a new epoch and records the old one with the last feed position
    /// it holds; returns the new epoch.
    @discardableResult
    static func fork(_ connection: SQLiteConnection) throws -> String {
        try connection.transaction {
            let old = try connection.first("SELECT value FROM meta WHERE key = 'epoch'", as: { $0.text(0) })
            let last = try connection.first(
                "SELECT value FROM meta WHERE key = 'feed_position'", as: { Int64($0.text(0)) ?? 0 }) ?? 0
            let recorded = try connection.first("SELECT value FROM meta WHERE key = ?", key, as: { $0.text(0) })
            let epoch = random()
            try connection.execute(
                "INSERT INTO meta (key, value) VALUES ('epoch', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", epoch)
            if let old {
                let pairs = [recorded, "\(old):\(last)"].compactMap { $0 }.filter { !$0.isEmpty }
                try connection.execute(
                    "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    key, pairs.joined(separator: " "))
            }
            return epoch
        }
    }
}
