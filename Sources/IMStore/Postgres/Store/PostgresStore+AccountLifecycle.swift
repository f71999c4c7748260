import IMProtocol

/// The PostgreSQL engine's own part of account lifecycles (the rest:
/// `Body/AccountLifecycle.swift`).
extension PostgresStore {
    public func recordTokenUse(_ uses: [Int64: Timestamp]) async throws {
        guard !uses.isEmpty else { return }
        let ids = Array(uses.keys)
        let times = ids.map { uses[$0]?.milliseconds ?? 0 }
        // Not a feed write: straight through a session, in one statement.
        _ = try await read { connection in
            try connection.execute(
                """
                UPDATE tokens t SET last_used_at = greatest(coalesce(t.last_used_at, 0), u.at)
                FROM unnest(?1::int8[], ?2::int8[]) AS u(id, at) WHERE t.id = u.id
                """,
                PostgresValue.integerArray(ids), PostgresValue.integerArray(times))
        }
    }
}
