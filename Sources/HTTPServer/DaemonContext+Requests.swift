import CMicroHTTPD
import Foundation
import Glibc

/// The request pipeline, run on MHD's thread for each connection. Once a request is read
/// a task asks the responder, on MHD's thread. If it answers without waiting, the
/// response is queued at once. Otherwise the connection is suspended; when what the task
/// waits for is done, its next step is handed to the connection (`ConnectionLink` is the
/// task's executor), which is resumed so that MHD's thread runs the step (the access
/// handler is called again) and queues the answer once there is one (the thread-safe way:
/// `MHD_queue_response` belongs to MHD's own thread). A deferred answer resumes the
/// connection the same way. Responses are never queued on the first call except for
/// early rejections: MHD would close the keep-alive connection.
extension DaemonContext {
    func connectionOpened(_ handle: OpaquePointer) -> ConnectionState {
        let state = ConnectionState(handle: handle, trustedProxies: configuration.trustedProxies)
        if !connections.add(state) {
            // Over the per-address limit: MHD sees the socket fail and closes it.
            Glibc.shutdown(state.fd, Int32(SHUT_RDWR))
        }
        return state
    }

    func connectionClosed(_ state: ConnectionState) {
        connections.remove(state)
    }

    /// The request is complete: hand it to a task, and answer at once or suspend.
    func requestReceived(link: ConnectionLink, connection: OpaquePointer) -> MHD_Result {
        switch link.bodyRefusal {
        case .tooLarge:
            counters.rejectedBodyTooLarge.add(1, ordering: .relaxed)
            return queue(tooLargeResponse(limit: link.bodyLimit), on: connection, state: link.connection)
        case .serverFull:
            counters.refusedBufferFull.add(1, ordering: .relaxed)
            return queue(serverFullResponse(), on: connection, state: link.connection)
        case nil:
            break
        }
        // The body is in: the server works now, and a parked request may wait long.
        link.connection.clearDeadline()
        // Counted before the flag is read; `shutdown` sets the flag before it reads the
        // count (both sequentially consistent), so no request slips past the drain.
        counters.inFlightRequests.add(1, ordering: .sequentiallyConsistent)
        if shuttingDown.load(ordering: .sequentiallyConsistent) {
            requestLeftFlight()
            return queue(shuttingDownResponse(), on: connection, state: link.connection)
        }
        counters.requestsTotal.add(1, ordering: .relaxed)
        link.dispatched = true
        var request = Request(
            method: link.head.method, path: link.head.path,
            query: values(of: connection, kind: .GET_ARGUMENT_KIND),
            headers: link.head.headers, body: link.body,
            remoteAddress: link.clientAddress, peerAddress: link.connection.peerAddress, connection: link)
        if responder.decodesForm(for: link.head) { request.form = FormDecoder.fields(of: link.body, on: connection) }
        link.body = Data()

        // The task starts on this thread and its later steps run here too (the link is
        // its executor), so a responder that does not wait is answered without
        // suspending the connection, and one that waits needs no other thread to go on.
        let generation = link.connection.beginRequest()
        link.generation = generation
        let responder = self.responder
        // Nothing cancels it: a handler runs to its answer (a long-poll defers its answer
        // and ends at once), and shutdown answers for handlers past the grace.
        Task.immediate(executorPreference: link) {
            let response = await responder.respond(to: request)
            if let deferral = response.deferral, deferral.link === link { return }
            link.finishDirectly(with: response)
        }
        return drive(link, generation: generation, connection: connection)
    }

    /// Runs the task's pending steps here until it has answered (queued at once) or waits
    /// (the connection is suspended until its next step or its answer comes).
    private func drive(_ link: ConnectionLink, generation: Int, connection: OpaquePointer) -> MHD_Result {
        while true {
            link.runSteps()
            if link.connection.transition(generation: generation, from: .finishedInline, to: .active) {
                return queueTaskResponse(link: link, connection: connection)
            }
            // A step came in while the others ran: run it too.
            if link.connection.transition(generation: generation, from: .jobPending, to: .running) { continue }
            break
        }
        // The task waits. Suspend first: whoever moves the request out of `suspended`
        // resumes the connection, and resuming an unsuspended connection is undefined
        // behaviour in MHD.
        counters.suspendedRequests.add(1, ordering: .relaxed)
        link.countedSuspended = true
        MHD_suspend_connection(connection)
        if !link.connection.transition(generation: generation, from: .running, to: .suspended) {
            // A step or the answer came between the check and the suspension, or
            // `shutdown` took it over: resume it ourselves; the access handler is called
            // again and goes on.
            MHD_resume_connection(connection)
        }
        return .YES
    }

    /// Called again after the connection was resumed: for the task's next step, for its
    /// answer, or because `shutdown` took it over.
    func resumed(link: ConnectionLink, connection: OpaquePointer) -> MHD_Result {
        let phase = link.connection.currentPhase()
        // Owed before it stops counting as suspended: `shutdown` reads the counts in that order.
        if phase == .abandoned { oweShutdownAnswer(link) }
        leaveSuspension(link)
        switch phase {
        case .abandoned:
            link.endSteps()
            return queue(shuttingDownResponse(), on: connection, state: link.connection)
        case .jobPending:
            if link.connection.transition(generation: link.generation, from: .jobPending, to: .running) {
                return drive(link, generation: link.generation, connection: connection)
            }
            // Taken over by `shutdown` or answered meanwhile: as below.
            return resumed(link: link, connection: connection)
        default:
            return queueTaskResponse(link: link, connection: connection)
        }
    }

    private func queueTaskResponse(link: ConnectionLink, connection: OpaquePointer) -> MHD_Result {
        link.endSteps()
        guard let response = link.response else {
            return queue(
                responder.errorResponse(status: 500, message: "no response"), on: connection, state: link.connection)
        }
        link.response = nil
        return queue(response, on: connection, state: link.connection)
    }

    /// The request is over (response sent, or the connection failed): the next request's
    /// headers are due within `headerTimeout`.
    func requestCompleted(link: ConnectionLink?, connection: OpaquePointer?) {
        // A deferral nobody answered (the connection failed) must not stay counted as
        // parked, nor keep its link alive.
        if let link, link.deferralStarted.load(ordering: .acquiring) { watcher.deferral(of: link)?.retire() }
        if let state = link?.connection ?? connection.flatMap(connectionState(of:)) {
            connections.startDeadline(.headers, for: state)
        }
        if let link {
            // A task still waiting goes on without the connection.
            link.endSteps()
            leaveSuspension(link)
            releaseBody(of: link)
            if link.clientAddress != link.connection.peerAddress { forwarded.release(link.clientAddress) }
        }
        if link?.dispatched == true { requestLeftFlight() }
        if let link, link.owesShutdownAnswer {
            link.owesShutdownAnswer = false
            if counters.unsentShutdownAnswers.subtract(1, ordering: .sequentiallyConsistent).newValue == 0 {
                gaugeReachedZero.notify()
            }
        }
    }

    /// A request `shutdown` took over will be answered 503: counted until that is sent.
    func oweShutdownAnswer(_ link: ConnectionLink) {
        guard !link.owesShutdownAnswer else { return }
        link.owesShutdownAnswer = true
        counters.unsentShutdownAnswers.add(1, ordering: .sequentiallyConsistent)
    }

    /// Uncounts a suspended request once, whichever comes first: the access handler's
    /// next call, or the end of the request (a client that went away while suspended is
    /// never called back).
    func leaveSuspension(_ link: ConnectionLink) {
        guard link.countedSuspended else { return }
        link.countedSuspended = false
        if counters.suspendedRequests.subtract(1, ordering: .sequentiallyConsistent).newValue == 0,
           shuttingDown.load(ordering: .sequentiallyConsistent) {
            gaugeReachedZero.notify()
        }
    }

    private func requestLeftFlight() {
        if counters.inFlightRequests.subtract(1, ordering: .sequentiallyConsistent).newValue == 0,
           shuttingDown.load(ordering: .sequentiallyConsistent) {
            gaugeReachedZero.notify()
        }
    }

    // MARK: Responses

    func tooLargeResponse(limit: Int) -> Response {
        responder.errorResponse(
            status: 413, message: "request body too large (limit \(limit) bytes)")
    }

    private func serverFullResponse() -> Response {
        var response = responder.errorResponse(
            status: 503, message: "the server holds as many request bodies as it may: try again in a moment")
        response.headers.set("Retry-After", "1")
        return response
    }

    func tooManyInFlightResponse(_ client: String) -> Response {
        var response = responder.errorResponse(
            status: 429, message: "too many requests in flight from \(client): finish some first")
        response.headers.set("Retry-After", "1")
        return response
    }

    func shuttingDownResponse() -> Response {
        var response = responder.errorResponse(status: 503, message: "server is shutting down")
        response.headers.set("Connection", "close")
        return response
    }

    /// Hands a response to MHD, which adds `Content-Length` and `Date` and leaves the body
    /// out for HEAD; the client must take it within `sendTimeout`.
    func queue(_ response: Response, on connection: OpaquePointer, state: ConnectionState) -> MHD_Result {
        connections.startDeadline(.send, for: state)
        let mhdResponse = response.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(
                bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress),
                .RESPMEM_MUST_COPY)
        }
        guard let mhdResponse else {
            log("cannot create a response of \(response.body.count) bytes")
            return .NO
        }
        defer { MHD_destroy_response(mhdResponse) }
        for field in response.headers where !field.name.isContentLength {
            if MHD_add_response_header(mhdResponse, field.name, field.value) == .NO {
                log("response header '\(field.name)' dropped: not a valid header line")
            }
        }
        let status = (100...999).contains(response.status) ? response.status : 500
        return MHD_queue_response(connection, UInt32(status), mhdResponse)
    }

    // MARK: Request values

    /// Headers or query arguments in the order they came, as MHD parsed (and for query
    /// arguments percent-decoded) them.
    func values(of connection: OpaquePointer, kind: MHD_ValueKind) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        withUnsafeMutablePointer(to: &fields) { pointer in
            _ = MHD_get_connection_values_n(connection, kind, collectValue, pointer)
        }
        return fields
    }
}

/// Appends one key/value pair to the array `cls` points to.
private func collectValue(
    cls: UnsafeMutableRawPointer?, kind: MHD_ValueKind,
    key: UnsafePointer<CChar>?, keySize: Int, value: UnsafePointer<CChar>?, valueSize: Int
) -> MHD_Result {
    guard let cls else { return .NO }
    let fields = cls.assumingMemoryBound(to: [(name: String, value: String)].self)
    var valueCount = valueSize
    if kind == .HEADER_KIND, let value {
        // MHD drops the whitespace before a header value but keeps the one after it.
        while valueCount > 0, value[valueCount - 1] == 0x20 || value[valueCount - 1] == 0x09 {
            valueCount -= 1
        }
    }
    fields.pointee.append((name: text(key, keySize), value: text(value, valueCount)))
    return .YES
}

private func text(_ pointer: UnsafePointer<CChar>?, _ count: Int) -> String {
    guard let pointer, count > 0 else { return "" }
    return String(decoding: UnsafeRawBufferPointer(start: pointer, count: count), as: UTF8.self)
}

extension String {
    /// `Content-Length`, in any case: MHD computes it, and refuses a second one.
    fileprivate var isContentLength: Bool {
        utf8.count == 14 && lowercased() == "content-length"
    }
}
