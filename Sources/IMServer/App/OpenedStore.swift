import Foundation
import IMProtocol
import IMStore
import Lifecycle

/// The server's storage once opened: the SQLite database in the data folder, or a
/// PostgreSQL database other server nodes may share.
enum OpenedStore: Sendable, CustomStringConvertible {
    /// A server holds the data folder's lock while it is open: one server per folder, and
    /// no restore under a running one.
    case sqlite(SQLiteStore, directory: String, lock: DataFolderLock?)
    case postgres(PostgresStore, target: String)

    /// Opens what `configuration.store` names (creating the data folder, or migrating the
    /// PostgreSQL database on first use); `ServerStartError` saying what is wrong. A
    /// server takes the data folder's lock (`lockingFolder`); account administration on
    /// the folder works beside a running server and does not. `notice` hears what was
    /// changed on the way (a data folder made private).
    static func open(
        _ configuration: ServerConfiguration, time: any TimeSource, lockingFolder: Bool = true,
        notice: (String) -> Void = { _ in }
    ) async throws -> OpenedStore {
        let clock: @Sendable () -> Timestamp = { Timestamp(milliseconds: time.wallMilliseconds) }
        switch configuration.store {
        case .sqlite:
            let directory = configuration.dataDirectory
            if let problem = IMServerApp.createDirectories(directory) {
                throw ServerStartError(message: "cannot create the data folder \(directory): \(problem)")
            }
            guard FileManager.default.isWritableFile(atPath: directory) else {
                throw ServerStartError(message: "the data folder \(directory) is not writable")
            }
            try keepPrivate(directory, notice: notice)
            var lock: DataFolderLock?
            if lockingFolder {
                do {
                    lock = try DataFolderLock(directory: directory)
                } catch {
                    throw ServerStartError(message: error.description)
                }
            }
            do {
                let store = try SQLiteStore(directory: directory, synchronous: configuration.synchronous, clock: clock)
                return .sqlite(store, directory: directory, lock: lock)
            } catch {
                lock?.release()
                throw ServerStartError(message: "cannot open the database in \(directory): \(error)")
            }
        case .postgres(let url):
            let shown = ServerFileConfig.redacted(url)
            do {
                let store = try await PostgresStore.open(
                    PostgresStore.Configuration(
                        connection: PostgresConfiguration(url: url), readConnections: configuration.storeConnections,
                        acquireTimeout: configuration.storeWait, writerSessions: configuration.storeWriters),
                    clock: clock, time: time)
                return .postgres(store, target: shown)
            } catch {
                throw ServerStartError(message: "cannot open the PostgreSQL database \(shown): \(error)")
            }
        }
    }

    /// Makes a data folder that its group or others may enter (made by packaging, by
    /// `mkdir -p`, by systemd's `StateDirectory=`) the owner's alone (0700), or throws
    /// saying what to do: the database in it holds password hashes and every message.
    static func keepPrivate(_ directory: String, notice: (String) -> Void) throws {
        var status = stat()
        guard stat(directory, &status) == 0, status.st_mode & 0o077 != 0 else { return }
        let mode = String(status.st_mode & 0o777, radix: 8)
        guard chmod(directory, status.st_mode & 0o700) == 0 else {
            throw ServerStartError(
                message: "the data folder \(directory) is open to other users (mode \(mode)) and cannot be narrowed "
                    + "(\(String(cString: strerror(errno)))): run 'chmod 700 \(directory)' as its owner")
        }
        notice("the data folder \(directory) was open to other users (mode \(mode)); it is 0700 now")
    }

    /// Every storage protocol.
    var storage: any ServerStore {
        switch self {
        case .sqlite(let store, _, _): store
        case .postgres(let store, _): store
        }
    }

    /// The PostgreSQL store, when it is one.
    var postgres: PostgresStore? {
        if case .postgres(let store, _) = self { return store }
        return nil
    }

    /// Where the data is, for logs (never a password).
    var description: String {
        switch self {
        case .sqlite(_, let directory, _): "sqlite in \(directory)"
        case .postgres(_, let target): "postgres \(target)"
        }
    }

    /// Closes the database (and lets go of the data folder).
    func close() async {
        await storage.close()
        if case .sqlite(_, _, let lock?) = self { lock.release() }
    }

    /// The store's samples for `/metrics`.
    func samples() -> [MetricSample] {
        switch self {
        case .sqlite(let store, _, _):
            return StoreMetrics.samples(store.writerStats)
        case .postgres(let store, _):
            let pool = store.poolStatistics
            let listener = store.cluster.listenerStatistics
            return StoreMetrics.samples(store.writerStats) + [
                .gauge("switchboard_postgres_sessions", "Read sessions open to PostgreSQL.", pool.slots),
                .gauge("switchboard_postgres_sessions_in_use", "Read sessions running a statement now.", pool.inUse),
                .gauge("switchboard_postgres_waiting", "Requests waiting for a read session now.", pool.waiting),
                .counter("switchboard_postgres_pool_timeouts_total", "Requests that found no free session in time (503).", pool.timeouts),
                .counter("switchboard_postgres_pool_rejected_total", "Requests refused because too many waited already (503).", pool.rejected),
                .counter("switchboard_postgres_reconnects_total", "Read sessions found broken and opened again.", pool.reconnects),
                .counter("switchboard_cluster_listens_total", "Times the cluster listener started listening (1 + reconnects).", listener.sessions),
                .counter("switchboard_cluster_notifications_total", "Notifications heard from the nodes of the database.", listener.notifications),
                .counter("switchboard_cluster_notices_refused_total", "Notifications refused: malformed, or naming what the tables do not hold.", store.cluster.refusedNotices),
                .gauge("switchboard_feed_position", "Every feed position up to this one is committed and was heard of.", Int(store.committedPosition)),
            ]
        }
    }
}
