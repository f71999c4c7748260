import CPostgres
import Foundation

/// Owns one libpq result (`PGresult`): its status, its error fields and its cells, read
/// as bytes by the binary decoder.
final class PostgresResult: @unchecked Sendable {
    // @unchecked: a PGresult is immutable once returned and libpq allows reading it from
    // any thread; rows made from it are read after the query's thread handed them over.
    private let handle: OpaquePointer

    init(_ handle: OpaquePointer) { self.handle = handle }

    deinit { PQclear(handle) }

    /// True for a command or query that completed.
    var succeeded: Bool {
        let status = PQresultStatus(handle)
        return status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY
    }

    /// One field of the error report (`SB_PG_DIAG_SQLSTATE`, …), or nil.
    func errorField(_ code: Int) -> String? {
        PQresultErrorField(handle, Int32(code)).map { String(cString: $0) }
    }

    /// The whole error text libpq composed.
    var errorText: String {
        (PQresultErrorMessage(handle).map { String(cString: $0) } ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    var rowCount: Int { Int(PQntuples(handle)) }

    var columnCount: Int { Int(PQnfields(handle)) }

    /// The rows a command changed (`INSERT`, `UPDATE`, `DELETE`, …); 0 for others.
    var affectedRows: Int { Int(String(cString: PQcmdTuples(handle))) ?? 0 }

    /// The command tag: `INSERT 0 1`, `COMMIT`, `ROLLBACK`, …
    var commandTag: String { String(cString: PQcmdStatus(handle)) }

    func columnName(_ column: Int) -> String {
        PQfname(handle, Int32(column)).map { String(cString: $0) } ?? "?"
    }

    /// The column's type OID.
    func columnType(_ column: Int) -> UInt32 { PQftype(handle, Int32(column)) }

    func isNull(row: Int, column: Int) -> Bool { PQgetisnull(handle, Int32(row), Int32(column)) == 1 }

    /// Calls `body` with the cell's bytes (binary format), valid only inside it.
    func withBytes<T>(row: Int, column: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let count = Int(PQgetlength(handle, Int32(row), Int32(column)))
        let start = PQgetvalue(handle, Int32(row), Int32(column))
        return try body(UnsafeRawBufferPointer(start: start, count: start == nil ? 0 : count))
    }
}
