extension Request {
    /// Runs `body` as a parked wait (a long-poll): while inside, the request's task is
    /// cancelled if the client hangs up or the server shuts down. Outside parked regions
    /// handlers are never cancelled. For a Request made up in a test (no connection) it
    /// just runs body.
    ///
    /// Cancellation is the only signal: `body` should wait in a way that ends on
    /// cancellation (e.g. a continuation with a cancellation handler) and then answer at
    /// once. Regions may nest; only the outermost one watches the connection.
    public func parked<T>(_ body: () async throws -> T) async rethrows -> T {
        guard let connection else { return try await body() }
        let watcher = connection.watcher
        watcher.enter(connection)
        defer { watcher.exit(connection) }
        return try await body()
    }
}
