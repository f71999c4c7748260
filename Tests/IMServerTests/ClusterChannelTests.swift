import Foundation
import IMProtocol
import IMServer
import IMStore
import Logging
import PostgresTestSupport
import TestSupport
import Testing

/// Issue 25, §2: the nodes' channel (`NOTIFY switchboard_cluster`) is open to any role that
/// may connect, and NOTIFY needs no grant. Tried with a second role that has no grants:
/// the migration keeps it from connecting at all; granted CONNECT alone (as a careless
/// deployment might), it sends every forged notice it can think of, and two real nodes
/// keep serving, keep delivering, hand out no cursor from the forged future and end no
/// poll with 409.
@Suite(.serialized) struct ClusterChannelTests {
    /// A role of the test cluster that may log in and nothing else, dropped after `body`.
    private func withGrantlessRole<T>(
        _ cluster: PostgresTestCluster, _ body: (_ name: String, _ password: String) async throws -> T
    ) async throws -> T {
        let name = "forger_\(getpid())"
        let password = "forger-\(UInt32.random(in: 1...UInt32.max))"
        try await dropRole(name, cluster)  // one left by a killed run
        try await cluster.admin.withConnection { connection in
            try connection.executeScript("CREATE ROLE \(name) LOGIN PASSWORD '\(password)'")
        }
        return try await ensuring({ try await body(name, password) }) { try? await dropRole(name, cluster) }
    }

    /// Drops the role with its grants (CONNECT on a database is a grant on a shared object,
    /// which `DROP OWNED` revokes from any database).
    private func dropRole(_ name: String, _ cluster: PostgresTestCluster) async throws {
        try await cluster.admin.withConnection { connection in
            try connection.executeScript(
                """
                DO $$ BEGIN
                    IF EXISTS (SELECT FROM pg_roles WHERE rolname = '\(name)') THEN EXECUTE 'DROP OWNED BY \(name)'; END IF;
                END $$;
                DROP ROLE IF EXISTS \(name)
                """)
        }
    }

    /// A pool of one session on `database` as `user`.
    private func pool(_ cluster: PostgresTestCluster, _ database: String, user: String, password: String) -> PostgresPool {
        PostgresPool(
            configuration: PostgresPool.Configuration(
                connection: PostgresConfiguration(url: "postgresql://\(user):\(password)@127.0.0.1:\(cluster.port)/\(database)"),
                maxConnections: 1, acquireTimeout: .seconds(30)))
    }

    /// Two nodes on a database made empty here and migrated by the first node (a copy of
    /// a migrated template would not carry the migration's database-wide grants).
    private func withFreshNodes<T>(
        _ body: (PostgresTestCluster, String, [TestServer]) async throws -> T
    ) async throws -> T {
        let cluster = try await PostgresTestCluster.shared()
        let database = try await cluster.createDatabase()
        var servers: [TestServer] = []
        return try await ensuring({
            for _ in 0..<2 {
                servers.append(
                    try await TestServer.start { config in
                        config.store = .postgres(url: cluster.url(database: database))
                        config.storeConnections = 4
                    })
            }
            return try await body(cluster, database, servers)
        }) {
            for server in servers {
                await server.stop()
                server.removeData()
            }
            try? await cluster.dropDatabase(database)
        }
    }

    @Test func forgedNoticesFromARoleWithoutGrantsChangeNothing() async throws {
        try await withFreshNodes { cluster, database, nodes in
            let (a, b) = (nodes[0], nodes[1])
            try await withGrantlessRole(cluster) { role, password in
                // The migration took CONNECT from PUBLIC: a role nobody granted it cannot connect.
                let refused = pool(cluster, database, user: role, password: password)
                await expectPermissionDenied { try await refused.withConnection { _ in 0 } }
                await refused.close()
                #expect(a.logs.lines.allSatisfy { !$0.message.contains("PUBLIC holds CONNECT") })

                // Granted CONNECT alone, it connects, and can read nothing.
                try await cluster.admin.withConnection { connection in
                    try connection.executeScript("GRANT CONNECT ON DATABASE \(database) TO \(role)")
                }
                let forger = pool(cluster, database, user: role, password: password)
                try await ensuring({
                await expectPermissionDenied {
                    try await forger.withConnection { try $0.first("SELECT position FROM feed_clock") { try $0.int(0) } ?? 0 }
                }

                let (alice, _) = try await a.client.register("alice")
                _ = try await b.client.register("bob")
                let bob = try await b.client.login("bob")
                let cursor = try await bob.cursor()
                async let parked = bob.poll(cursor, timeout: 50)
                try await b.awaitParkedPolls(1)
                let before = try await b.metric("switchboard_cluster_notices_refused_total") ?? 0

                let int64Max = String(Int64.max, radix: 36)
                let trillion = String(Int64(1_000_000_000_000), radix: 36)
                let claims = (1...50).map { "\(String($0, radix: 36)):\(String(999_999, radix: 36))" }.joined(separator: " ")
                let forged = [
                    // What trapped every node: a recipient delta past Int64 (the old format).
                    "f x 1 2 0 1=\(int64Max),\(int64Max)",
                    "f x 1 \(int64Max)0",  // a position past Int64
                    // A range at 10^12: froze delivery and handed out cursors there.
                    "f x 1 \(trillion)",
                    "f \(UUID().uuidString) \(trillion) \(trillion)",
                    // Claims of every login so far, with a generation nobody holds: each poll would end with 409.
                    "c x \(claims)",
                    "r x 1", "r x \(int64Max)",
                    "", "f", "zzz", "c x 1:", String(repeating: "x", count: 7_999),
                ]
                try await forger.withConnection { connection in
                    for payload in forged {
                        try connection.execute("SELECT pg_notify('switchboard_cluster', $1)", payload)
                    }
                }
                // Heard and refused: the malformed ones (6), the range past the clock, and the
                // claims (none held elsewhere: bob's is B's own).
                try await eventually("node B refused the forged notices") {
                    (try await b.metric("switchboard_cluster_notices_refused_total") ?? 0) - before >= 6 + 1 + 50
                }

                // Nodes keep serving; bob's poll is still parked (no 409) and delivery flows.
                for node in [a, b] { expectStatus(try await node.client.get("/healthz"), 200) }
                #expect(b.parkedPolls == 1)
                let sent = try await alice.message("user:bob", "still flowing")
                let batch = try await parked.decode(EventBatch.self)
                #expect(batch.events.compactMap(\.message) == [sent])
                // No cursor from the forged future, on either node.
                for (node, login) in [(a, alice), (b, bob)] {
                    let position = try #require(try await node.metric("switchboard_feed_position"))
                    #expect(position < 1_000)
                    let fresh = try await TestClient(server: node, token: login.token).events(after: nil)
                    #expect(try #require(Int64(fresh.cursor.split(separator: ".").last ?? "")) < 1_000)
                }
                // And the next message reaches a poll parked on the other node too.
                async let next = TestClient(server: a, token: bob.token).poll(batch.cursor, timeout: 50)
                try await a.awaitParkedPolls(1)
                let reply = try await TestClient(server: b, token: alice.token).message("user:bob", "across nodes")
                #expect(try await next.decode(EventBatch.self).events.compactMap(\.message) == [reply])
                }) { await forger.close() }
            }
        }
    }


    @Test func aNodeOnADatabaseAnyRoleMayConnectToSaysSoAtStart() async throws {
        // A copy of the migrated template: PUBLIC holds CONNECT there, as on a database
        // migrated by a role that does not own it.
        try await withNodes(1) { nodes in
            #expect(nodes[0].logs.lines.contains {
                $0.level == .warning && $0.message.contains("PUBLIC holds CONNECT") && $0.message.contains("REVOKE CONNECT")
            })
        }
    }

    private func expectPermissionDenied<T>(
        _ body: () async throws -> T, sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        do {
            _ = try await body()
            Issue.record("not refused", sourceLocation: sourceLocation)
        } catch {
            #expect(String(describing: error).contains("permission denied"), "\(error)", sourceLocation: sourceLocation)
        }
    }
}
