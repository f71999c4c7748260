import CSQLite

/// Keeps something derived from rows (a cache on the writer thread) true while one
/// connection changes them: told of each row change just before it is made (SQLite's
/// pre-update hook), and of everything that can undo changes it was told of: a statement
/// that failed part-way, a savepoint or a transaction rolled back. Install it with
/// `SQLiteConnection.observeRowChanges(_:)`.
public protocol RowChangeObserver: AnyObject {
    /// A row is about to change; `change` is valid only during the call.
    func rowChanging(_ change: RowChange)
    /// Changes this observer was told of may have been undone: forget what came of them.
    func changesUndone()
}

/// One row about to change, as SQLite's pre-update hook describes it. Valid only while
/// the observer is being told of it.
public struct RowChange {
    public enum Operation: Sendable { case insert, update, delete }

    public let operation: Operation
    fileprivate let handle: OpaquePointer
    fileprivate let tableName: UnsafePointer<CChar>
    /// The row's rowid before and after (rowid tables only; 0 for inserts before, deletes after).
    public let oldRowID: Int64
    public let newRowID: Int64

    /// Whether the row is one of `table`'s (compared without building a string).
    public func isIn(_ table: StaticString) -> Bool {
        table.withUTF8Buffer { name in
            for (index, byte) in name.enumerated() where tableName[index] != CChar(bitPattern: byte) { return false }
            return tableName[name.count] == 0
        }
    }

    /// Column `column` (in table order) before an update or delete.
    public func old(_ column: Int32) -> Value? {
        guard operation != .insert, column >= 0 else { return nil }
        var value: OpaquePointer?
        guard sqlite3_preupdate_old(handle, column, &value) == SQLITE_OK, let value else { return nil }
        return Value(value: value)
    }

    /// Column `column` (in table order) after an insert or update.
    public func new(_ column: Int32) -> Value? {
        guard operation != .delete, column >= 0 else { return nil }
        var value: OpaquePointer?
        guard sqlite3_preupdate_new(handle, column, &value) == SQLITE_OK, let value else { return nil }
        return Value(value: value)
    }

    /// One column's value; valid as long as the change is.
    public struct Value {
        fileprivate let value: OpaquePointer

        public var isNull: Bool { sqlite3_value_type(value) == SQLITE_NULL }
        public var int: Int64 { sqlite3_value_int64(value) }
        public var optionalInt: Int64? { isNull ? nil : int }
        public var text: String {
            guard let pointer = sqlite3_value_text(value) else { return "" }
            return String(decoding: UnsafeBufferPointer(start: pointer, count: Int(sqlite3_value_bytes(value))), as: UTF8.self)
        }
    }
}

extension SQLiteConnection {
    /// Tells `observer` of every row this connection changes from now on, and of every
    /// undoing of such changes (see `RowChangeObserver`); nil stops. The observer is held
    /// strongly until replaced.
    public func observeRowChanges(_ observer: (any RowChangeObserver)?) {
        rowObserver = observer.map(ObserverBox.init)
        let context = rowObserver.map { Unmanaged.passUnretained($0).toOpaque() }
        sqlite3_preupdate_hook(handle, rowObserver == nil ? nil : preupdate, context)
        sqlite3_rollback_hook(handle, rowObserver == nil ? nil : rolledBack, context)
    }

    /// What SQLite's hooks point at.
    final class ObserverBox {
        let observer: any RowChangeObserver

        init(_ observer: any RowChangeObserver) { self.observer = observer }
    }
}

private func preupdate(
    context: UnsafeMutableRawPointer?, handle: OpaquePointer?, operation: Int32, database: UnsafePointer<CChar>?,
    table: UnsafePointer<CChar>?, oldRowID: Int64, newRowID: Int64
) {
    guard let context, let handle, let table else { return }
    let box = Unmanaged<SQLiteConnection.ObserverBox>.fromOpaque(context).takeUnretainedValue()
    let kind: RowChange.Operation =
        switch operation {
        case SQLITE_INSERT: .insert
        case SQLITE_DELETE: .delete
        default: .update
        }
    box.observer.rowChanging(
        RowChange(
            operation: kind, handle: handle, tableName: table, oldRowID: kind == .insert ? 0 : oldRowID,
            newRowID: kind == .delete ? 0 : newRowID))
}

private func rolledBack(context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    Unmanaged<SQLiteConnection.ObserverBox>.fromOpaque(context).takeUnretainedValue().observer.changesUndone()
}
