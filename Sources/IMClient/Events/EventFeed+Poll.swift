import IMProtocol

/// One long-poll and what its outcome means for the stream.
extension EventFeed {
    enum PollOutcome {
        /// Events (possibly none) and the next cursor; `staleLogin` when this client has
        /// logged in anew since the poll was sent (its events then speak of the old login).
        case batch(PolledBatch, staleLogin: Bool)
        /// The login the poll used has ended, but this client already holds a new one
        /// (after `login` or `changePassword`): poll again at once.
        case loginReplaced
        /// The cursor is unknown to the server: poll afresh and tell the consumer to re-sync.
        case expired(reason: String)
        /// The server asked to wait (429) before polling again.
        case wait(Duration)
        /// No usable answer; try again after a backoff of at least `minimumWait`.
        case failed(IMClientError, minimumWait: Duration?)
        /// The stream cannot go on.
        case fatal(IMClientError)
        /// The consuming task was cancelled.
        case cancelled
    }

    /// Polls once from `cursor` (nil: a fresh cursor, answered at once).
    ///
    /// Its frame lies under every parked poll, so what it holds across the wait is only the
    /// request and the token; building the request and reading the answer are synchronous.
    func poll(from cursor: String?) async -> PollOutcome {
        let request = eventsRequest(from: cursor)
        let token = client.token
        let response: TransportResponse
        do {
            response = try await client.perform(request)
        } catch {
            if error.code == .api(.unauthorized) || error.code == .kickedOut, await loginChanged(since: token) {
                return .loginReplaced
            }
            return classify(error, hadCursor: cursor != nil)
        }
        let (outcome, kicked) = read(response, for: request)
        guard kicked, case .batch(let batch, _) = outcome else { return outcome }
        return .batch(batch, staleLogin: await loginChanged(since: token))
    }

    private func eventsRequest(from cursor: String?) -> APIRequest {
        var query: [(name: String, value: String)] = []
        if let cursor { query.append(("cursor", cursor)) }
        query.append(("timeout", String(options.pollTimeout)))
        query.append(("limit", String(options.limit)))
        var request = APIRequest("GET", "/v1/events", query: query)
        request.context = .events
        // Room for the server's parked wait plus a slow answer.
        request.timeout = .seconds(options.pollTimeout + 15)
        return request
    }

    /// The answer as a batch, and whether it holds a `kicked_out` event (whose meaning
    /// depends on whether this client has logged in anew since).
    @inline(never)
    private func read(_ response: TransportResponse, for request: APIRequest) -> (PollOutcome, kicked: Bool) {
        do {
            let batch = try client.decode(PolledBatch.self, from: response, for: request)
            let kicked = batch.items.contains {
                if case .event(let event) = $0 { return event.type == .kickedOut }
                return false
            }
            return (.batch(batch, staleLogin: false), kicked)
        } catch {
            // A 200 that is not a batch: a proxy's page while the server restarts, say.
            return (.failed(error, minimumWait: nil), false)
        }
    }

    /// True when this client holds another token than `token`, once any call that
    /// replaces it has finished (the server ends the old login before answering it).
    private func loginChanged(since token: String?) async -> Bool {
        await client.loginSettled()
        guard let current = client.token else { return false }
        return current != token
    }

    private func classify(_ error: IMClientError, hadCursor: Bool) -> PollOutcome {
        if Task.isCancelled { return .cancelled }
        let serverWait = error.retryAfter.map { Duration.seconds(max(0, $0)) }
        switch error.code {
        case .cancelled:
            return .fatal(error)  // not this task: the transport was shut down
        case .unreachable, .timedOut, .connectionLost, .transport, .badResponse:
            return .failed(error, minimumWait: nil)
        case .api(.cursorExpired) where hadCursor:
            return .expired(reason: error.api?.message ?? error.message)
        case .api(.invalidRequest) where hadCursor && error.api?.field == "cursor":
            // A damaged cursor file: as good as an expired cursor.
            return .expired(reason: error.api?.message ?? error.message)
        case .api(.rateLimited):
            guard let serverWait else { return .failed(error, minimumWait: nil) }
            return .wait(serverWait)
        case .api(.unavailable), .api(.internalError), .api(.cursorExpired):
            return .failed(error, minimumWait: serverWait)
        default:
            return .fatal(error)
        }
    }
}
