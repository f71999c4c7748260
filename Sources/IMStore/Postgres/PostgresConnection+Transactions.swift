/// How much a transaction sees of others running at the same time.
public enum PostgresIsolation: String, Sendable {
    /// Each statement sees what was committed before it started (PostgreSQL's default).
    case readCommitted = "READ COMMITTED"
    /// The whole transaction sees one snapshot; a conflicting update fails with 40001.
    case repeatableRead = "REPEATABLE READ"
    /// As if transactions ran one after another; a conflict fails with 40001.
    case serializable = "SERIALIZABLE"
}

extension PostgresConnection {
    /// Runs `body` in a transaction: committed if it returns, rolled back if it throws.
    ///
    /// A failed statement aborts the whole transaction in PostgreSQL, so an error `body`
    /// catches and ignores still ends it: COMMIT then throws instead of reporting success
    /// for work that was undone. Use `savepoint` to recover from an expected failure.
    @discardableResult
    public func transaction<T>(
        _ isolation: PostgresIsolation = .readCommitted, readOnly: Bool = false, _ body: () throws -> T
    ) throws -> T {
        guard handle.isIdle else {
            throw PostgresError(
                kind: .server, message: "a transaction is already open on this connection; use savepoint",
                context: "BEGIN")
        }
        try executeScript("BEGIN ISOLATION LEVEL \(isolation.rawValue)\(readOnly ? " READ ONLY" : "")")
        let value: T
        do {
            value = try body()
        } catch {
            rollBack()
            throw error
        }
        try commit()
        return value
    }

    /// Runs `body` inside a savepoint: its changes are kept if it returns and undone if
    /// it throws, leaving the enclosing transaction usable either way.
    @discardableResult
    public func savepoint<T>(_ body: () throws -> T) throws -> T {
        try executeScript("SAVEPOINT sb_savepoint")
        do {
            let value = try body()
            try executeScript("RELEASE SAVEPOINT sb_savepoint")
            return value
        } catch {
            if handle.isConnected {
                _ = try? executeScript("ROLLBACK TO SAVEPOINT sb_savepoint")
                _ = try? executeScript("RELEASE SAVEPOINT sb_savepoint")
            }
            throw error
        }
    }

    private func commit() throws {
        guard !handle.isInFailedTransaction else {
            rollBack()
            throw PostgresError(
                kind: .server,
                message: "a statement of the transaction failed and its error was caught; everything was rolled back",
                context: "COMMIT")
        }
        do {
            try executeScript("COMMIT")
        } catch var error as PostgresError where error.kind == .connectionLost {
            error.message += " (whether the transaction committed is unknown)"
            throw error
        }
    }

    private func rollBack() {
        // Nothing to undo on a broken connection: the server rolled back when it went.
        if handle.isConnected, !handle.isIdle { _ = try? executeScript("ROLLBACK") }
    }

    /// Runs `body`'s reads in one read-only repeatable-read transaction, so they all see
    /// the same commits.
    public func snapshot<T>(_ body: () throws -> T) throws -> T {
        try transaction(.repeatableRead, readOnly: true, body)
    }
}
