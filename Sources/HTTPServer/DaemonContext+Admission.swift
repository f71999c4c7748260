import CMicroHTTPD
import Foundation
import Glibc

/// From the headers to the body: what is decided before any of a request's body is read
/// (the responder's `BodyAdmission`), and how the body is then held.
///
/// A decision that needs to wait (`.check`: a login to look up) runs in a task while the
/// connection is suspended with the body unread; the task stores the decision and resumes
/// the connection, and MHD calls the access handler again as for the headers
/// (`admissionDecided`). A refusal is queued on that first call, so MHD answers and closes
/// without reading the body. Bodies are buffered as they arrive, counted against
/// `maxBufferedBodyBytes` for all requests together until their request ends.
extension DaemonContext {
    /// How much of a body past its limit is read (and dropped) so that a 413 or 503 can be
    /// sent at the end; a client sending more is cut off.
    static let discardAllowance = 16 << 20

    /// First call: the headers are in. Decides on the body, or rejects at once.
    func headersReceived(
        connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?,
        context: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let state = connectionState(of: connection) else { return .NO }
        connections.startDeadline(.body, for: state)
        if shuttingDown.load(ordering: .relaxed) {
            return queue(shuttingDownResponse(), on: connection, state: state)
        }
        let head = RequestHead(
            method: HTTPMethod(rawValue: method.map { String(cString: $0) } ?? "GET"),
            path: url.map { String(cString: $0) } ?? "/",
            headers: HTTPHeaders(values(of: connection, kind: .HEADER_KIND)),
            declaredBodyLength: declaredBodyLength(connection))
        let client = forwarded.client(of: head, on: state)
        if client != state.peerAddress, !forwarded.admit(client) {
            // Before any of the body is read; MHD closes the connection after this.
            counters.refusedForwarded.add(1, ordering: .relaxed)
            return queue(tooManyInFlightResponse(client), on: connection, state: state)
        }
        let link = ConnectionLink(
            watcher: watcher, connection: state, head: head, bodyLimit: configuration.maxBodyBytes,
            clientAddress: client)
        let admission = responder.admission(for: head)
        if case .check = admission {
            context.pointee = Unmanaged.passRetained(link).toOpaque()
            link.awaitingAdmission = true
            // The check waits as a handler does: suspended in the connection's phases, so
            // that `shutdown` can take it over (and resume it) should the check not end.
            // Counted before the flag is read again; `shutdown` sets the flag before it
            // reads the count (both sequentially consistent), so either this sees the flag
            // or `shutdown` waits for this connection: MHD must never be stopped with a
            // connection suspended that nobody will resume.
            counters.suspendedRequests.add(1, ordering: .sequentiallyConsistent)
            link.countedSuspended = true
            if shuttingDown.load(ordering: .sequentiallyConsistent) {
                leaveSuspension(link)
                link.awaitingAdmission = false
                return queue(shuttingDownResponse(), on: connection, state: state)
            }
            let generation = state.beginRequest()
            link.generation = generation
            MHD_suspend_connection(connection)
            if !state.transition(generation: generation, from: .running, to: .suspended) {
                // `shutdown` took it over meanwhile: resume it ourselves; the next call answers 503.
                MHD_resume_connection(connection)
                return .YES
            }
            let responder = self.responder
            // Ends with the check (a login looked up); nothing waits on it but the
            // connection, which it resumes unless `shutdown` did.
            Task {
                link.decide(await responder.checkedAdmission(for: head))
                if state.transition(generation: generation, from: .suspended, to: .active) {
                    MHD_resume_connection(state.handle)
                }
            }
            return .YES
        }
        guard let refusal = apply(admission, to: link) else {
            context.pointee = Unmanaged.passRetained(link).toOpaque()
            return .YES
        }
        if client != state.peerAddress { forwarded.release(client) }
        return queue(refusal, on: connection, state: state)
    }

    /// Called as for the headers once a checked admission is decided: reads the body, or
    /// answers without reading it.
    func admissionDecided(link: ConnectionLink, connection: OpaquePointer) -> MHD_Result {
        let refused = shuttingDown.load(ordering: .sequentiallyConsistent) || link.connection.currentPhase() == .abandoned
        // Owed before it stops counting as suspended: `shutdown` reads the counts in that order.
        if refused { oweShutdownAnswer(link) }
        leaveSuspension(link)
        link.awaitingAdmission = false
        if refused {
            return queue(shuttingDownResponse(), on: connection, state: link.connection)
        }
        let admission = link.takeDecision() ?? .read(limit: nil)
        guard let refusal = apply(admission, to: link) else { return .YES }
        // The link stays the request's context; its end gives back what it holds.
        return queue(refusal, on: connection, state: link.connection)
    }

    /// Sets the link's body limit from an admission; the response to give at once instead,
    /// if any.
    private func apply(_ admission: BodyAdmission, to link: ConnectionLink) -> Response? {
        switch admission {
        case .refuse(let response):
            counters.refusedBeforeBody.add(1, ordering: .relaxed)
            var closing = response
            closing.headers.set("Connection", "close")
            return closing
        case .read(let limit):
            link.bodyLimit = max(limit ?? configuration.maxBodyBytes, 0)
        case .check:
            link.bodyLimit = configuration.maxBodyBytes
        }
        if let declared = link.head.declaredBodyLength, declared > link.bodyLimit {
            counters.rejectedBodyTooLarge.add(1, ordering: .relaxed)
            return tooLargeResponse(limit: link.bodyLimit)
        }
        return nil
    }

    /// First call of a request whose query `sb_mhd_query_guard` emptied: 414 at once.
    func tooManyArguments(connection: OpaquePointer) -> MHD_Result {
        guard let state = connectionState(of: connection) else { return .NO }
        counters.refusedQueryArguments.add(1, ordering: .relaxed)
        var response = responder.errorResponse(
            status: 414, message: "too many query arguments (at most \(configuration.maxQueryArguments))")
        response.headers.set("Connection", "close")
        return queue(response, on: connection, state: state)
    }

    /// A piece of the body. Past the request's limit (a chunked body has no declared
    /// length), or past the bytes the server buffers for all requests, the rest is dropped
    /// as it comes and the error sent once the body ends.
    func bodyReceived(
        link: ConnectionLink, data: UnsafeRawPointer?, size: UnsafeMutablePointer<Int>
    ) -> MHD_Result {
        let count = size.pointee
        size.pointee = 0
        link.bodyBytes += count
        if link.bodyRefusal == nil {
            if link.bodyBytes > link.bodyLimit {
                refuseBody(of: link, .tooLarge)
            } else if counters.bufferedBodyBytes.add(count, ordering: .relaxed).newValue > configuration.maxBufferedBodyBytes {
                counters.bufferedBodyBytes.subtract(count, ordering: .relaxed)
                refuseBody(of: link, .serverFull)
            } else {
                link.bufferedBytes += count
                if let data { link.body.append(data.assumingMemoryBound(to: UInt8.self), count: count) }
                return .YES
            }
        }
        return link.bodyBytes - link.bodyLimit > DaemonContext.discardAllowance ? .NO : .YES
    }

    private func refuseBody(of link: ConnectionLink, _ refusal: ConnectionLink.BodyRefusal) {
        link.bodyRefusal = refusal
        releaseBody(of: link)
    }

    /// Drops the link's body and gives its bytes back to the server's total.
    func releaseBody(of link: ConnectionLink) {
        link.body = Data()
        guard link.bufferedBytes > 0 else { return }
        counters.bufferedBodyBytes.subtract(link.bufferedBytes, ordering: .relaxed)
        link.bufferedBytes = 0
    }

    /// The body's declared length: `Content-Length`, nil for a chunked body, 0 for none.
    private func declaredBodyLength(_ connection: OpaquePointer) -> Int? {
        guard var digit = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length") else {
            return MHD_lookup_connection_value(connection, .HEADER_KIND, "Transfer-Encoding") == nil ? 0 : nil
        }
        // MHD has checked the value; this only reads its digits, saturating.
        var length = 0
        while (0x30...0x39).contains(digit.pointee) {
            let (product, overflowed) = length.multipliedReportingOverflow(by: 10)
            let (sum, carried) = product.addingReportingOverflow(Int(digit.pointee - 0x30))
            if overflowed || carried { return Int.max }
            length = sum
            digit += 1
        }
        return length
    }
}
