import Synchronization

/// A snapshot of an `HTTPServer`'s counters and gauges, e.g. for `/metrics`.
///
/// Gauges say what is true now; counters only grow from the server's start.
public struct HTTPServerStats: Sendable, Equatable {
    /// Gauge: TCP connections open now, parked ones included.
    public var openConnections: Int
    /// Gauge: requests with a deferred answer now (long-polls waiting for something).
    public var parkedRequests: Int
    /// Gauge: requests handed to the responder whose response has not been sent yet.
    public var inFlightRequests: Int
    /// Counter: requests handed to the responder.
    public var requestsTotal: Int
    /// Counter: requests answered 413 because their body passed the limit.
    public var rejectedBodyTooLarge: Int
    /// Counter: connections closed because their request headers did not arrive in time.
    public var headerTimeouts: Int
    /// Counter: connections closed because a request body did not arrive in time.
    public var bodyTimeouts: Int
    /// Counter: connections closed because the client did not take a response in time.
    public var sendTimeouts: Int
    /// Counter: connections refused because their address held the most allowed.
    public var refusedPerAddress: Int
    /// Counter: requests from behind a trusted proxy answered 429 because their client
    /// had the most requests allowed in flight.
    public var refusedForwarded: Int
    /// Counter: clients that hung up while their request was parked.
    public var clientHangups: Int
    /// Gauge: request body bytes held now, across all requests.
    public var bufferedBodyBytes: Int
    /// Counter: requests answered 503 because the bodies held already took every byte
    /// allowed (`maxBufferedBodyBytes`).
    public var refusedBufferFull: Int
    /// Counter: requests answered before any of their body was read (`BodyAdmission.refuse`).
    public var refusedBeforeBody: Int
    /// Counter: requests answered 414 for carrying too many query arguments.
    public var refusedQueryArguments: Int

    public init(
        openConnections: Int = 0, parkedRequests: Int = 0, inFlightRequests: Int = 0,
        requestsTotal: Int = 0, rejectedBodyTooLarge: Int = 0, headerTimeouts: Int = 0,
        bodyTimeouts: Int = 0, sendTimeouts: Int = 0, refusedPerAddress: Int = 0, refusedForwarded: Int = 0,
        clientHangups: Int = 0, bufferedBodyBytes: Int = 0, refusedBufferFull: Int = 0, refusedBeforeBody: Int = 0,
        refusedQueryArguments: Int = 0
    ) {
        self.openConnections = openConnections
        self.parkedRequests = parkedRequests
        self.inFlightRequests = inFlightRequests
        self.requestsTotal = requestsTotal
        self.rejectedBodyTooLarge = rejectedBodyTooLarge
        self.headerTimeouts = headerTimeouts
        self.bodyTimeouts = bodyTimeouts
        self.sendTimeouts = sendTimeouts
        self.refusedPerAddress = refusedPerAddress
        self.refusedForwarded = refusedForwarded
        self.clientHangups = clientHangups
        self.bufferedBodyBytes = bufferedBodyBytes
        self.refusedBufferFull = refusedBufferFull
        self.refusedBeforeBody = refusedBeforeBody
        self.refusedQueryArguments = refusedQueryArguments
    }
}

/// The live values behind `HTTPServerStats`, updated lock-free from MHD's threads.
final class ServerCounters: Sendable {
    let openConnections = Atomic<Int>(0)
    let parkedRequests = Atomic<Int>(0)
    let inFlightRequests = Atomic<Int>(0)
    let requestsTotal = Atomic<Int>(0)
    let rejectedBodyTooLarge = Atomic<Int>(0)
    let headerTimeouts = Atomic<Int>(0)
    let bodyTimeouts = Atomic<Int>(0)
    let sendTimeouts = Atomic<Int>(0)
    let refusedPerAddress = Atomic<Int>(0)
    let refusedForwarded = Atomic<Int>(0)
    let clientHangups = Atomic<Int>(0)
    let bufferedBodyBytes = Atomic<Int>(0)
    let refusedBufferFull = Atomic<Int>(0)
    let refusedBeforeBody = Atomic<Int>(0)
    let refusedQueryArguments = Atomic<Int>(0)
    /// Requests whose connection is suspended in MHD while the responder works; MHD
    /// must not be stopped while any remain.
    let suspendedRequests = Atomic<Int>(0)
    /// 503s queued for requests that `shutdown` took over, not yet sent: MHD is stopped
    /// only once they are written (or a bounded wait ends).
    let unsentShutdownAnswers = Atomic<Int>(0)

    var snapshot: HTTPServerStats {
        HTTPServerStats(
            openConnections: openConnections.load(ordering: .relaxed),
            parkedRequests: parkedRequests.load(ordering: .relaxed),
            inFlightRequests: inFlightRequests.load(ordering: .relaxed),
            requestsTotal: requestsTotal.load(ordering: .relaxed),
            rejectedBodyTooLarge: rejectedBodyTooLarge.load(ordering: .relaxed),
            headerTimeouts: headerTimeouts.load(ordering: .relaxed),
            bodyTimeouts: bodyTimeouts.load(ordering: .relaxed),
            sendTimeouts: sendTimeouts.load(ordering: .relaxed),
            refusedPerAddress: refusedPerAddress.load(ordering: .relaxed),
            refusedForwarded: refusedForwarded.load(ordering: .relaxed),
            clientHangups: clientHangups.load(ordering: .relaxed),
            bufferedBodyBytes: bufferedBodyBytes.load(ordering: .relaxed),
            refusedBufferFull: refusedBufferFull.load(ordering: .relaxed),
            refusedBeforeBody: refusedBeforeBody.load(ordering: .relaxed),
            refusedQueryArguments: refusedQueryArguments.load(ordering: .relaxed))
    }
}
