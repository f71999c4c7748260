import CPostgres
import Foundation

/// Owns one libpq connection (`PGconn`). With `PostgresResult` and `PostgresCancel` it is
/// the only code that sees a libpq pointer; everything above speaks Swift values.
///
/// Not thread-safe, like the `PGconn` it owns: one thread at a time (a pool slot's, the
/// listener's) calls it.
final class PostgresConnectionHandle {
    private let conn: OpaquePointer

    /// Connects with libpq keyword/value pairs, in order (a later pair overrides an
    /// earlier one; a `dbname` holding a URL or conninfo string is expanded in place).
    init(parameters: [(String, String)]) throws {
        let keywords = parameters.map { strdup($0.0) }
        let values = parameters.map { strdup($0.1) }
        defer {
            keywords.forEach { free($0) }
            values.forEach { free($0) }
        }
        let conn = (keywords.map { UnsafePointer($0) } + [nil]).withUnsafeBufferPointer { keywordList in
            (values.map { UnsafePointer($0) } + [nil]).withUnsafeBufferPointer { valueList in
                PQconnectdbParams(keywordList.baseAddress, valueList.baseAddress, 1)
            }
        }
        guard let conn else {
            throw PostgresError(kind: .connectionFailed, message: "out of memory", context: "connecting")
        }
        self.conn = conn
        guard PQstatus(conn) == CONNECTION_OK else {
            throw PostgresError(kind: .connectionFailed, message: errorMessage, context: "connecting to \(target)")
        }
        sb_pq_discard_notices(conn)
    }

    deinit { PQfinish(conn) }

    /// `host:port/database` of this connection, for messages (never the password).
    var target: String {
        let host = PQhost(conn).map { String(cString: $0) } ?? "?"
        let port = PQport(conn).map { String(cString: $0) } ?? "?"
        let database = PQdb(conn).map { String(cString: $0) } ?? "?"
        return "\(host):\(port)/\(database)"
    }

    /// libpq's latest error text, trimmed.
    var errorMessage: String {
        let text = PQerrorMessage(conn).map { String(cString: $0) } ?? ""
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    var isConnected: Bool { PQstatus(conn) == CONNECTION_OK }

    /// True when no transaction is open and no command is running.
    var isIdle: Bool { PQtransactionStatus(conn) == PQTRANS_IDLE }

    /// True inside a transaction whose earlier statement failed (only ROLLBACK works).
    var isInFailedTransaction: Bool { PQtransactionStatus(conn) == PQTRANS_INERROR }

    /// The server process serving this connection.
    var backendPID: Int32 { PQbackendPID(conn) }

    /// A setting the server reports (`server_version`, `integer_datetimes`, …).
    func parameterStatus(_ name: String) -> String? {
        PQparameterStatus(conn, name).map { String(cString: $0) }
    }

    /// Runs SQL without parameters through the simple protocol, which allows several
    /// statements in one string.
    func exec(_ sql: String) -> PostgresResult? {
        PQexec(conn, sql).map(PostgresResult.init)
    }

    /// Parses `sql` into the named statement with the given parameter types.
    func prepare(name: String, sql: String, types: [UInt32]) -> PostgresResult? {
        types.withUnsafeBufferPointer { types in
            PQprepare(conn, name, sql, Int32(types.count), types.baseAddress).map(PostgresResult.init)
        }
    }

    /// Runs a named statement; results come back in binary format.
    func execPrepared(name: String, _ parameters: PostgresParameters) -> PostgresResult? {
        parameters.withPointers { count, _, values, lengths, formats in
            PQexecPrepared(conn, name, count, values, lengths, formats, 1).map(PostgresResult.init)
        }
    }

    /// Parses and runs `sql` once (the unnamed statement); results in binary format.
    func execParams(_ sql: String, _ parameters: PostgresParameters) -> PostgresResult? {
        parameters.withPointers { count, types, values, lengths, formats in
            PQexecParams(conn, sql, count, types, values, lengths, formats, 1).map(PostgresResult.init)
        }
    }

    /// Throws unless `result` is a success; a missing result or a dead connection is a
    /// lost connection. The one place where libpq outcomes become `PostgresError`.
    @discardableResult
    func check(_ result: PostgresResult?, _ context: @autoclosure () -> String) throws -> PostgresResult {
        if let result, result.succeeded { return result }
        guard let result, let sqlState = result.errorField(SB_PG_DIAG_SQLSTATE) else {
            // libpq's own failure, no server error: the connection broke under us. The
            // connection's message holds everything said during the command, the
            // server's last words (a FATAL "terminating connection due to administrator
            // command") included.
            throw PostgresError(
                kind: isConnected ? .server : .connectionLost,
                message: errorMessage.isEmpty ? result?.errorText ?? "no result" : errorMessage, context: context())
        }
        var error = PostgresError(
            sqlState: sqlState,
            message: result.errorField(SB_PG_DIAG_MESSAGE_PRIMARY) ?? result.errorText,
            context: context())
        error.detail = result.errorField(SB_PG_DIAG_MESSAGE_DETAIL)
        error.hint = result.errorField(SB_PG_DIAG_MESSAGE_HINT)
        error.constraint = result.errorField(SB_PG_DIAG_CONSTRAINT_NAME)
        error.table = result.errorField(SB_PG_DIAG_TABLE_NAME)
        if !isConnected { error.kind = .connectionLost }
        throw error
    }

    // MARK: Waiting for the server (the listener)

    /// The socket to wait on, or nil when there is none.
    var socket: Int32? {
        let fd = PQsocket(conn)
        return fd >= 0 ? fd : nil
    }

    /// Reads what the server sent; false when the connection failed.
    func consumeInput() -> Bool { PQconsumeInput(conn) == 1 && isConnected }

    /// The notifications received so far, oldest first.
    func takeNotifications() -> [PostgresNotification] {
        var notifications: [PostgresNotification] = []
        while let notify = PQnotifies(conn) {
            notifications.append(
                PostgresNotification(
                    channel: String(cString: notify.pointee.relname),
                    payload: String(cString: notify.pointee.extra),
                    senderPID: notify.pointee.be_pid))
            PQfreemem(notify)
        }
        return notifications
    }

    /// Blocks until the server sends something (true) or `wake` becomes readable (false).
    func waitForInput(orReadable wake: Int32) throws -> Bool {
        guard let fd = socket else {
            throw PostgresError(kind: .connectionLost, message: "no socket", context: "waiting on \(target)")
        }
        var entries = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        while poll(&entries, 2, -1) < 0 {
            guard errno == EINTR else {
                throw PostgresError(kind: .connectionLost, message: String(cString: strerror(errno)), context: "poll")
            }
        }
        return entries[1].revents == 0
    }

    /// True when the idle connection has nothing to read: an idle connection that does
    /// not listen is sent nothing, so readable means the server said goodbye (a FATAL
    /// before closing, after `pg_terminate_backend` or a restart) or the socket closed.
    var hasNothingPending: Bool {
        guard let fd = socket else { return false }
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 0
    }

    /// A handle that cancels this connection's running command from another thread.
    func makeCancel() -> PostgresCancel? { PQgetCancel(conn).map(PostgresCancel.init) }
}

/// Owns a libpq cancel object (`PGcancel`): asks the server, over a new connection, to
/// stop the command the connection runs now. Unlike the connection it may be used from
/// any thread (libpq documents `PQcancel` as thread-safe).
final class PostgresCancel: @unchecked Sendable {
    // @unchecked: the only method is PQcancel, which libpq allows from any thread; the
    // owner serialises calls with its own lock anyway.
    private let handle: OpaquePointer

    init(_ handle: OpaquePointer) { self.handle = handle }

    deinit { PQfreeCancel(handle) }

    /// Sends the cancel request; returns libpq's error text when it could not be sent.
    @discardableResult
    func cancel() -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        let sent = PQcancel(handle, &buffer, Int32(buffer.count))
        guard sent != 1 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
