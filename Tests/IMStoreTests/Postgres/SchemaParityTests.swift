import Foundation
import IMStore
import PostgresTestSupport
import Testing

/// The two engines' schemas (`Schema`, `PostgresSchema`) are two migration lists; this
/// proves them the same, table by table, column by column (name, type family,
/// nullability, default), primary key and index by index (columns, uniqueness, partial or
/// not), on a real SQLite file and a real PostgreSQL database, each migrated from empty by
/// its store. What only one engine has is listed with its reason.
@Suite("Schema parity")
struct SchemaParityTests {
    /// What one engine has and the other needs not, each with its reason. The test fails
    /// on any other difference, and on one of these gone (then it leaves the list).
    static let engineOnly: [String: String] = [
        "table switchboard_migrations: only in PostgreSQL":
            "PostgreSQL's migrator records applied versions in a table; SQLite's in `PRAGMA user_version`",
        "table poll_claims: only in PostgreSQL":
            "which node's event poll of a login is the current one: only several nodes need to know",
        "table login_counters: only in PostgreSQL":
            "login throttling shared by the nodes; one SQLite process keeps it in memory",
        "table login_trust: only in PostgreSQL": "the same: addresses each account logged in from lately",
        "table feed_clock: only in PostgreSQL":
            "the feed positions in commit order across nodes; SQLite's writer keeps its counter in `meta`",
        "table revocation_clock: only in PostgreSQL": "ended logins told to the other nodes' caches",
        "table revocations: only in PostgreSQL": "the same",
        "table messages: column position: only in SQLite":
            "SQLite's one writer finds a message's event through the message; PostgreSQL numbers events at commit, after the messages are written",
        "table conversation_events: index (conversation_id, position) where …: only in SQLite":
            "the same: SQLite's index by conversation leaves message events out, which the messages find",
        "table conversation_events: index (conversation_id, position): only in PostgreSQL":
            "the same: PostgreSQL's holds every event of a conversation",
        "table user_events: index (position): only in PostgreSQL":
            "a node reads the users' own events another node committed by position (PostgresClusterFeed)",
    ]

    @Test func theTwoSchemasAgree() async throws {
        let sqlite = try await StoreFixture.with(.sqlite) { fixture in
            let store = try await fixture.open()
            await store.close()
            return try SQLiteSchemaReader(path: fixture.directoryPath + "/switchboard.sqlite").schema()
        }
        let postgres = try await StoreFixture.with(.postgres) { fixture in
            let store = try await fixture.open()
            await store.close()
            return try fixture.postgresSchema()
        }
        var differences: [String] = []
        for table in Set(sqlite.keys).subtracting(postgres.keys).sorted() {
            differences.append("table \(table): only in SQLite")
        }
        for table in Set(postgres.keys).subtracting(sqlite.keys).sorted() {
            differences.append("table \(table): only in PostgreSQL")
        }
        for name in Set(sqlite.keys).intersection(postgres.keys).sorted() {
            guard let lite = sqlite[name], let pg = postgres[name] else { continue }
            differences += lite.differences(from: pg).map { "table \(name): \($0)" }
        }
        let unexplained = differences.filter { Self.engineOnly[$0] == nil }
        #expect(unexplained.isEmpty, "\(unexplained.joined(separator: "\n"))")
        let gone = Set(Self.engineOnly.keys).subtracting(differences)
        #expect(gone.isEmpty, "no longer a difference: \(gone.sorted())")
        // The comparison saw the schema: every table the stores use is there on both sides.
        #expect(sqlite.count >= 20 && postgres.count >= 20)
        #expect(sqlite["messages"]?.columns.count ?? 0 >= 10)
    }
}

/// One table as the comparison sees it.
struct TableShape: Equatable {
    struct Column: Equatable, CustomStringConvertible {
        var family: String
        var notNull: Bool
        var defaultValue: String?
        var description: String { "\(family)\(notNull ? " not null" : "")\(defaultValue.map { " default \($0)" } ?? "")" }
    }

    struct Index: Hashable, CustomStringConvertible {
        var columns: [String]
        var unique: Bool
        var partial: Bool
        var description: String {
            "\(unique ? "unique " : "")index (\(columns.joined(separator: ", ")))\(partial ? " where …" : "")"
        }
    }

    var columns: [String: Column] = [:]
    var primaryKey: [String] = []
    var indexes: Set<Index> = []

    /// What differs, SQLite's side first.
    func differences(from other: TableShape) -> [String] {
        var found: [String] = []
        for name in Set(columns.keys).union(other.columns.keys).sorted() {
            switch (columns[name], other.columns[name]) {
            case (let lite?, let pg?) where lite != pg: found.append("column \(name): SQLite \(lite), PostgreSQL \(pg)")
            case (nil, _?): found.append("column \(name): only in PostgreSQL")
            case (_?, nil): found.append("column \(name): only in SQLite")
            default: break
            }
        }
        if primaryKey != other.primaryKey {
            found.append("primary key: SQLite (\(primaryKey.joined(separator: ", "))), PostgreSQL (\(other.primaryKey.joined(separator: ", ")))")
        }
        for index in indexes.subtracting(other.indexes).sorted(by: { $0.description < $1.description }) {
            found.append("\(index): only in SQLite")
        }
        for index in other.indexes.subtracting(indexes).sorted(by: { $0.description < $1.description }) {
            found.append("\(index): only in PostgreSQL")
        }
        return found
    }

    /// The family of a declared type: SQLite's affinities, with PostgreSQL's integer
    /// types and booleans (SQLite keeps them as 0 and 1) as `integer`.
    static func family(_ declared: String) -> String {
        let type = declared.lowercased()
        if type.contains("int") || type == "boolean" { return "integer" }
        if type.contains("char") || type.contains("text") || type.contains("json") { return "text" }
        if type.contains("blob") || type == "bytea" { return "blob" }
        if type.contains("real") || type.contains("double") || type.contains("float") || type == "numeric" { return "real" }
        return type
    }

    /// A default as both engines would write it: casts, parentheses and the spelling of
    /// booleans set aside.
    static func normalizedDefault(_ value: String?) -> String? {
        guard var value, !value.isEmpty, value.uppercased() != "NULL" else { return nil }
        if let cast = value.range(of: "::") { value = String(value[..<cast.lowerBound]) }
        value = value.trimmingCharacters(in: CharacterSet(charactersIn: "()"))
        // A number PostgreSQL quotes before its cast ('9223372036854775807'::bigint).
        if value.hasPrefix("'"), value.hasSuffix("'"), value.count > 2, Int64(value.dropFirst().dropLast()) != nil {
            value = String(value.dropFirst().dropLast())
        }
        switch value.lowercased() {
        case "false": return "0"
        case "true": return "1"
        default: return value
        }
    }
}

/// Reads a SQLite database's schema through its own pragmas.
struct SQLiteSchemaReader {
    let connection: SQLiteConnection

    init(path: String) throws { connection = try SQLiteConnection(path: path, readOnly: true) }

    func schema() throws -> [String: TableShape] {
        let tables = try connection.rows(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'", as: { $0.text(0) })
        var shapes: [String: TableShape] = [:]
        for table in tables {
            var shape = TableShape()
            var key: [(Int64, String)] = []
            for (name, type, notNull, defaultValue, pk) in try connection.rows(
                "SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?1)", table,
                as: { ($0.text(0), $0.text(1), $0.bool(2), $0.optionalText(3), $0.int(4)) })
            {
                if pk > 0 { key.append((pk, name)) }
                shape.columns[name] = TableShape.Column(
                    family: TableShape.family(type), notNull: notNull || pk > 0,
                    defaultValue: TableShape.normalizedDefault(defaultValue))
            }
            shape.primaryKey = key.sorted { $0.0 < $1.0 }.map(\.1)
            for (index, unique, origin, partial) in try connection.rows(
                "SELECT name, \"unique\", origin, partial FROM pragma_index_list(?1)", table,
                as: { ($0.text(0), $0.bool(1), $0.text(2), $0.bool(3)) }) where origin != "pk"
            {
                let columns = try connection.rows(
                    "SELECT coalesce(name, '<expression>') FROM pragma_index_info(?1) ORDER BY seqno", index,
                    as: { $0.text(0) })
                shape.indexes.insert(TableShape.Index(columns: columns, unique: unique, partial: partial))
            }
            shapes[table] = shape
        }
        return shapes
    }
}

extension StoreFixture {
    /// The schema of the fixture's PostgreSQL database, from its catalogs.
    func postgresSchema() throws -> [String: TableShape] {
        guard let database = postgresDatabase else { throw StoreTestError("not a PostgreSQL fixture") }
        let connection = try PostgresConnection(configuration: database.configuration)
        let tables = try connection.rows(
            """
            SELECT table_name::text FROM information_schema.tables
            WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
            """, as: { try $0.text(0) })
        var shapes: [String: TableShape] = [:]
        for table in tables {
            var shape = TableShape()
            for (name, type, nullable, defaultValue) in try connection.rows(
                """
                SELECT column_name::text, data_type::text, is_nullable::text, column_default::text, is_identity::text
                FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1
                """, table,
                as: { row -> (String, String, Bool, String?) in
                    // An identity column is SQLite's INTEGER PRIMARY KEY: numbered by the database.
                    let identity = try row.optionalText(4) == "YES"
                    return (try row.text(0), try row.text(1), try row.text(2) == "YES",
                            identity ? nil : try row.optionalText(3))
                })
            {
                let numbered = defaultValue?.hasPrefix("nextval(") ?? false
                shape.columns[name] = TableShape.Column(
                    family: TableShape.family(type), notNull: !nullable,
                    defaultValue: numbered ? nil : TableShape.normalizedDefault(defaultValue))
            }
            for (columns, unique, primary, partial) in try connection.rows(
                """
                SELECT array_to_string(array(
                        SELECT coalesce(a.attname::text, '<expression>')
                        FROM unnest(ix.indkey::int2[]) WITH ORDINALITY AS k(attnum, n)
                        LEFT JOIN pg_attribute a ON a.attrelid = ix.indrelid AND a.attnum = k.attnum
                        ORDER BY k.n), ','),
                    ix.indisunique, ix.indisprimary, ix.indpred IS NOT NULL
                FROM pg_index ix JOIN pg_class t ON t.oid = ix.indrelid
                WHERE t.relname = $1 AND t.relnamespace = current_schema()::regnamespace
                """, table,
                as: { (try $0.text(0).split(separator: ",").map(String.init), try $0.bool(1), try $0.bool(2), try $0.bool(3)) })
            {
                if primary {
                    shape.primaryKey = columns
                } else {
                    shape.indexes.insert(TableShape.Index(columns: columns, unique: unique, partial: partial))
                }
            }
            shapes[table] = shape
        }
        return shapes
    }
}
