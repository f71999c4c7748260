import HTTPServer
import IMStore

/// The HTTP listener's counters and gauges as `/metrics` lines.
enum HTTPMetrics {
    static func gauges(_ stats: HTTPServerStats) -> [(name: String, help: String, value: Int)] {
        [
            ("switchboard_http_open_connections", "Open HTTP connections.", stats.openConnections),
            ("switchboard_http_in_flight_requests", "Requests being handled now.", stats.inFlightRequests),
            ("switchboard_http_rejected_too_large_total", "Requests refused with 413.", stats.rejectedBodyTooLarge),
            ("switchboard_http_header_timeouts_total", "Connections closed for slow headers.", stats.headerTimeouts),
            ("switchboard_http_body_timeouts_total", "Connections closed for a request body that did not arrive in time.", stats.bodyTimeouts),
            ("switchboard_http_send_timeouts_total", "Connections closed for a client that did not take its response in time.", stats.sendTimeouts),
            ("switchboard_http_refused_per_address_total", "Connections refused because their address held the most allowed.", stats.refusedPerAddress),
            ("switchboard_http_refused_forwarded_total", "Requests through a trusted proxy refused because their client had the most in flight.", stats.refusedForwarded),
            ("switchboard_http_client_hangups_total", "Parked requests whose client went away.", stats.clientHangups),
        ]
    }
}

/// The database writer's counters as `/metrics` lines.
enum StoreMetrics {
    static func gauges(_ writer: WriterStats) -> [(name: String, help: String, value: Int)] {
        [
            ("switchboard_store_batches_total", "Write batches (one transaction, one commit each).", writer.batches),
            ("switchboard_store_writes_total", "Write jobs committed in those batches.", writer.writes),
            ("switchboard_store_largest_batch", "The most write jobs one batch held.", writer.largestBatch),
            ("switchboard_store_busy_microseconds_total", "Writer time from BEGIN to the end of COMMIT.", writer.busyNanoseconds / 1000),
            ("switchboard_store_commit_microseconds_total", "Writer time in COMMIT (the WAL fsync with durability full).", writer.commitNanoseconds / 1000),
            ("switchboard_store_cpu_microseconds_total", "CPU time the writer thread used for its batches, resuming their callers included.", writer.cpuNanoseconds / 1000),
            ("switchboard_store_background_checkpoints_total", "Checkpoints of the write-ahead log run in the background.", writer.backgroundCheckpoints),
            ("switchboard_store_catch_up_checkpoints_total", "Checkpoints the writer ran itself because the background ones fell behind.", writer.catchUpCheckpoints),
        ]
    }
}
