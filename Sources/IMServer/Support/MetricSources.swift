import HTTPServer
import IMStore

/// The HTTP listener's counters and gauges as `/metrics` samples.
enum HTTPMetrics {
    static func samples(_ stats: HTTPServerStats) -> [MetricSample] {
        [
            .gauge("switchboard_http_open_connections", "Open HTTP connections.", stats.openConnections),
            .gauge("switchboard_http_in_flight_requests", "Requests being handled now.", stats.inFlightRequests),
            .counter("switchboard_http_rejected_too_large_total", "Requests refused with 413.", stats.rejectedBodyTooLarge),
            .counter("switchboard_http_header_timeouts_total", "Connections closed for slow headers.", stats.headerTimeouts),
            .counter("switchboard_http_body_timeouts_total", "Connections closed for a request body that did not arrive in time.", stats.bodyTimeouts),
            .counter("switchboard_http_send_timeouts_total", "Connections closed for a client that did not take its response in time.", stats.sendTimeouts),
            .counter("switchboard_http_refused_per_address_total", "Connections refused because their address held the most allowed.", stats.refusedPerAddress),
            .counter("switchboard_http_refused_forwarded_total", "Requests through a trusted proxy refused because their client had the most in flight.", stats.refusedForwarded),
            .counter("switchboard_http_client_hangups_total", "Parked requests whose client went away.", stats.clientHangups),
            .gauge("switchboard_http_buffered_body_bytes", "Request body bytes held now, across all requests.", stats.bufferedBodyBytes),
            .counter("switchboard_http_refused_buffer_full_total", "Requests answered 503 because the request bodies held took every byte allowed.", stats.refusedBufferFull),
            .counter("switchboard_http_refused_before_body_total", "Requests answered before any of their body was read (no login, a refused login).", stats.refusedBeforeBody),
            .counter("switchboard_http_refused_query_arguments_total", "Requests answered 414 for carrying too many query arguments.", stats.refusedQueryArguments),
        ]
    }
}

/// The database writer's counters as `/metrics` samples.
enum StoreMetrics {
    static func samples(_ writer: WriterStats) -> [MetricSample] {
        [
            .counter("switchboard_store_batches_total", "Write batches (one transaction, one commit each).", writer.batches),
            .counter("switchboard_store_writes_total", "Write jobs committed in those batches.", writer.writes),
            .gauge("switchboard_store_largest_batch", "The most write jobs one batch held.", writer.largestBatch),
            .counter("switchboard_store_busy_seconds_total", "Writer time from BEGIN to the end of COMMIT.", nanoseconds: writer.busyNanoseconds),
            .counter("switchboard_store_commit_seconds_total", "Writer time in COMMIT (the WAL fsync with durability full).", nanoseconds: writer.commitNanoseconds),
            .counter("switchboard_store_cpu_seconds_total", "CPU time the writer thread used for its batches, resuming their callers included.", nanoseconds: writer.cpuNanoseconds),
            .counter("switchboard_store_background_checkpoints_total", "Checkpoints of the write-ahead log run in the background.", writer.backgroundCheckpoints),
            .counter("switchboard_store_catch_up_checkpoints_total", "Checkpoints the writer ran itself because the background ones fell behind.", writer.catchUpCheckpoints),
            .counter("switchboard_store_isolated_reruns_total", "Write batches run again with each job in a savepoint, because a job failed after changing rows.", writer.isolatedReruns),
        ]
    }
}
