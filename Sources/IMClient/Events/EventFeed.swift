import IMProtocol

/// The state machine behind one `EventStream` iterator: polls, queues a batch, hands it
/// out one element at a time, and saves the batch's cursor once the consumer comes back
/// for more.
///
/// An actor so the iterator is `Sendable` and can be driven from any isolation; only
/// one task is expected to call `next()`.
actor EventFeed {
    let client: IMClient
    let store: any CursorStore
    let options: EventStreamOptions

    /// The cursor the next poll sends; nil polls without one (a fresh cursor).
    private var cursor: String?
    private var loaded = false
    /// The cursor known to be in the store, to skip saving the same one again.
    private var savedCursor: String?
    /// Saved once every queued element has been handed out and the consumer asks again.
    private var saveWhenDrained: String?
    private var queue: [LiveEvent] = []
    private var queueIndex = 0
    /// The highest position queued so far: events at or below it are repeats.
    private var lastPosition: Int64?
    /// Failed polls in a row, for the backoff.
    private var failures = 0
    /// Polls in a row answered at once with nothing although they asked to park.
    private var earlyEmptyAnswers = 0
    private var isDisconnected = false
    /// Set by a 410: the next successful (fresh) poll hands out `.resyncNeeded`.
    private var resyncReason: String?
    /// A wait to do before the next poll (backoff or `Retry-After`).
    private var pendingWait: Duration?
    /// Thrown once the queue is drained (after a `kicked_out` event).
    private var ending: IMClientError?
    private var finished = false

    init(client: IMClient, store: any CursorStore, options: EventStreamOptions) {
        self.client = client
        self.store = store
        self.options = options
    }

    func next() async throws(IMClientError) -> LiveEvent? {
        if finished { return nil }
        if queueIndex < queue.count { return handOut() }
        // The consumer is back after the last element: everything queued was handled.
        if let cursor = saveWhenDrained {
            saveWhenDrained = nil
            try await save(cursor)
        }
        if let ending { return try finish(throwing: ending) }
        if Task.isCancelled { return finish() }
        if !loaded { try await load() }
        while true {
            if let wait = pendingWait {
                pendingWait = nil
                do {
                    try await options.sleep(wait)
                } catch {
                    return finish()
                }
            }
            if Task.isCancelled { return finish() }
            let polledWithCursor = cursor != nil
            let started = options.monotonic()
            switch await poll(from: cursor) {
            case .batch(let batch, let staleLogin):
                if let first = try await accept(batch, staleLogin: staleLogin) { return first }
                if polledWithCursor, batch.items.isEmpty, options.pollTimeout > 0,
                    options.monotonic() - started < .seconds(1)
                {
                    // Parking was asked for but the server answered at once: pace the polls.
                    earlyEmptyAnswers += 1
                    if earlyEmptyAnswers > 1 {
                        pendingWait = options.backoff.delay(
                            afterFailures: earlyEmptyAnswers - 1, random: options.random())
                    }
                } else {
                    earlyEmptyAnswers = 0
                }
            case .expired(let reason):
                resyncReason = reason
                cursor = nil
                lastPosition = nil  // another database numbers its feed anew
            case .wait(let duration):
                pendingWait = duration
            case .failed(let error, let minimumWait):
                failures += 1
                var delay = options.backoff.delay(afterFailures: failures, random: options.random())
                if let minimumWait, minimumWait > delay { delay = minimumWait }
                pendingWait = delay
                isDisconnected = true
                return .disconnected(error, retryIn: delay)
            case .loginReplaced:
                continue
            case .fatal(let error):
                return try finish(throwing: error)
            case .cancelled:
                return finish()
            }
        }
    }

    /// Queues a successful poll's elements; returns the first one, or nil when there is
    /// nothing to hand out (an empty or all-repeated batch).
    private func accept(_ batch: PolledBatch, staleLogin: Bool) async throws(IMClientError) -> LiveEvent? {
        failures = 0
        if !batch.items.isEmpty { earlyEmptyAnswers = 0 }
        var items: [LiveEvent] = []
        if isDisconnected {
            isDisconnected = false
            items.append(.reconnected)
        }
        var handsOverWork = false
        if let reason = resyncReason {
            resyncReason = nil
            items.append(.resyncNeeded(reason: reason))
            handsOverWork = true
        }
        for item in batch.items {
            if case .event(let event) = item, event.type == .kickedOut {
                // This client logged in anew itself: the kick is of its own old login.
                if staleLogin { continue }
                // Its position repeats the cursor's, so it is never a repeat to drop.
                items.append(.event(event))
                ending = IMClientError(
                    .kickedOut, "logged in elsewhere: \(event.reason ?? "another login of this account replaced this one")")
                handsOverWork = true
                break
            }
            if let last = lastPosition, item.position <= last { continue }
            lastPosition = item.position
            items.append(item.liveEvent)
            handsOverWork = true
        }
        cursor = batch.cursor
        if handsOverWork {
            saveWhenDrained = batch.cursor
        } else {
            // Nothing for the consumer to handle: the cursor is safe to keep now.
            try await save(batch.cursor)
        }
        guard !items.isEmpty else { return nil }
        queue = items
        queueIndex = 0
        return handOut()
    }

    private func handOut() -> LiveEvent {
        let item = queue[queueIndex]
        queueIndex += 1
        if queueIndex == queue.count {
            queue = []
            queueIndex = 0
        }
        return item
    }

    private func load() async throws(IMClientError) {
        do {
            cursor = try await store.load()
        } catch {
            throw IMClientError(.localStorage, "cannot load the event cursor: \(error)")
        }
        savedCursor = cursor
        loaded = true
    }

    private func save(_ cursor: String) async throws(IMClientError) {
        guard cursor != savedCursor else { return }
        do {
            try await store.save(cursor)
        } catch let error as IMClientError {
            throw finishing(error)
        } catch {
            throw finishing(IMClientError(.localStorage, "cannot save the event cursor: \(error)"))
        }
        savedCursor = cursor
    }

    private func finish() -> LiveEvent? {
        finished = true
        return nil
    }

    private func finish(throwing error: IMClientError) throws(IMClientError) -> LiveEvent? {
        finished = true
        throw error
    }

    private func finishing(_ error: IMClientError) -> IMClientError {
        finished = true
        return error
    }
}
