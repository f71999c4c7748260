import CMicroHTTPD
import Dispatch
import Foundation
import Synchronization

/// Owns one running `MHD_Daemon`: started in `init`, stopped once by `stop()` (or by
/// `deinit` as a last resort).
///
/// While the daemon runs, MHD's callbacks hold the `DaemonContext` through a retained
/// pointer, released after `MHD_stop_daemon` returns (no callback can run after that).
final class MHDDaemon: Sendable {
    private struct State {
        /// nil once stopped.
        var daemon: DaemonPointer?
    }

    private let state: Mutex<State>
    private let core: Unmanaged<DaemonContext>
    /// The port bound (the real one when 0 was asked for).
    let port: Int

    init(core: DaemonContext, listener: ListenSocket, connectionLimit: Int) throws(HTTPServerError) {
        let configuration = core.configuration
        let threads = configuration.threads > 0
            ? configuration.threads : ProcessInfo.processInfo.activeProcessorCount
        var flags = MHD_USE_EPOLL_INTERNAL_THREAD.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
            | MHD_USE_ERROR_LOG.rawValue
        if listener.isIPv6 { flags |= MHD_USE_IPv6.rawValue }

        let retained = Unmanaged.passRetained(core)
        var settings = sb_mhd_settings(
            flags: UInt32(flags),
            listen_fd: listener.fd,
            thread_pool_size: UInt32(clamping: threads),
            connection_limit: UInt32(clamping: max(connectionLimit, 1)),
            connection_timeout: UInt32(clamping: max(configuration.idleTimeout, 0)),
            connection_memory: max(configuration.connectionMemory, 4096),
            max_query_arguments: max(configuration.maxQueryArguments, 1),
            access_handler: mhdAccessHandler,
            request_completed: mhdRequestCompleted,
            notify_connection: mhdNotifyConnection,
            logger: mhdLog,
            cls: retained.toOpaque())
        guard let daemon = sb_mhd_start(&settings) else {
            retained.release()
            close(listener.fd)
            throw HTTPServerError(
                code: .startFailed,
                message: "cannot serve HTTP on \(listener.displayAddress): the HTTP library "
                    + "refused to start (see the messages logged before this one)")
        }
        self.core = retained
        self.state = Mutex(State(daemon: DaemonPointer(pointer: daemon)))
        let reported = Int(sb_mhd_bind_port(daemon))
        self.port = reported != 0 ? reported : listener.boundPort
    }

    deinit {
        // Only reached if `stop()` was never called: stop without the graceful steps.
        let daemon = state.withLock { $0.daemon }
        if let daemon {
            MHD_stop_daemon(daemon.pointer)
            core.release()
        }
    }

    /// Stops MHD (closing every connection and the listening socket) and frees the port.
    /// Blocks while MHD joins its threads, so it runs on a thread of its own rather than the
    /// cooperative pool.
    ///
    /// The daemon is never quiesced (`MHD_quiesce_daemon`) first: with a pool of epoll
    /// threads, quiescing races each worker's own removal of the listening socket from its
    /// epoll set, and the loser aborts the process (libmicrohttpd 0.9.75). Until this
    /// runs, connections keep being accepted and their requests answered 503 (the
    /// `shuttingDown` flag), which tells a client more than a refused connect would.
    func stop() async {
        let taken = state.withLock { state -> DaemonPointer? in
            defer { state.daemon = nil }
            return state.daemon
        }
        guard let daemon = taken else { return }
        let core = self.core
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let thread = Thread {
                MHD_stop_daemon(daemon.pointer)
                core.release()
                continuation.resume()
            }
            thread.start()
        }
    }
}

/// A `struct MHD_Daemon *`.
/// `@unchecked Sendable`: it is only used under `MHDDaemon`'s mutex, or by the one thread
/// that stops the daemon after taking the pointer out from under it.
private struct DaemonPointer: @unchecked Sendable {
    let pointer: OpaquePointer
}
