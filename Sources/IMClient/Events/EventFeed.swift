import IMProtocol

/// The state machine behind one `EventStream` iterator: polls, queues a batch, hands it
/// out one element at a time, and saves the batch's cursor once the consumer comes back
/// for more.
///
/// An actor so the iterator is `Sendable` and can be driven from any isolation; only
/// one task is expected to call `next()`.
@usableFromInline
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
    /// Saved before anything else: a batch that had nothing to hand out.
    private var saveNow: String?
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
    /// Thrown once the queue is drained (after a `kicked_out` event, or a poll that
    /// cannot go on).
    private var ending: IMClientError?
    private var finished = false

    init(client: IMClient, store: any CursorStore, options: EventStreamOptions) {
        self.client = client
        self.store = store
        self.options = options
    }

    /// What `next()` does now, decided by `plan()` from the feed's state.
    private enum Step {
        case handOut, end, fail(IMClientError), save(String), load, sleep(Duration), poll
    }

    // The async part is kept to a loop over small steps on purpose: a runner parks one
    // poll per bot, and a task keeps, for its whole life, a block as large as the deepest
    // chain of async frames it ever had. Every decision and every event value lives in
    // synchronous calls (`plan`, `absorb`, `accept`, on the thread's stack), so the
    // frames under a parked poll hold little more than the request (BENCHMARKS.md, "A
    // shallow parked poll": 23 KiB of frames in the deepest chain before, 9.3 KiB now).
    @usableFromInline
    func next() async throws(IMClientError) -> LiveEvent? {
        while true {
            switch plan() {
            case .handOut: return handOut()
            case .end: return nil
            case .fail(let error): throw error
            case .save(let cursor): try await save(cursor)
            case .load: try await load()
            case .sleep(let wait): await pause(wait)
            case .poll: await pollOnce()
            }
        }
    }

    /// The next step, in this order: hand out what is queued (after saving a cursor that
    /// had nothing to hand out); once the consumer is back after the last element, save
    /// the batch's cursor (everything queued was handled); end after a `kicked_out` or a
    /// fatal poll; load the cursor once; wait if a wait is due; else poll.
    private func plan() -> Step {
        if finished { return .end }
        if let cursor = saveNow {
            saveNow = nil
            return .save(cursor)
        }
        if queueIndex < queue.count { return .handOut }
        if let cursor = saveWhenDrained {
            saveWhenDrained = nil
            return .save(cursor)
        }
        if let ending {
            finished = true
            return .fail(ending)
        }
        if Task.isCancelled {
            finished = true
            return .end
        }
        if !loaded { return .load }
        if let wait = pendingWait {
            pendingWait = nil
            return .sleep(wait)
        }
        return .poll
    }

    private func pause(_ wait: Duration) async {
        do {
            try await options.sleep(wait)
        } catch {
            finished = true
        }
    }

    @inline(never)
    private func pollOnce() async {
        let polledWithCursor = cursor != nil
        let started = options.monotonic()
        absorb(await poll(from: cursor), polledWithCursor: polledWithCursor, started: started)
    }

    /// Takes in one poll's outcome: queues what the consumer gets, or notes what to do next.
    @inline(never)
    private func absorb(_ outcome: PollOutcome, polledWithCursor: Bool, started: Duration) {
        switch outcome {
        case .batch(let batch, let staleLogin):
            if accept(batch, staleLogin: staleLogin) { return }
            if polledWithCursor, batch.items.isEmpty, options.pollTimeout > 0,
                options.monotonic() - started < .seconds(1)
            {
                // Parking was asked for but the server answered at once: pace the polls.
                earlyEmptyAnswers += 1
                if earlyEmptyAnswers > 1 {
                    pendingWait = options.backoff.delay(afterFailures: earlyEmptyAnswers - 1, random: options.random())
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
            queue = [.disconnected(error, retryIn: delay)]
            queueIndex = 0
        case .loginReplaced:
            break
        case .fatal(let error):
            ending = error  // the queue is empty: thrown at once
        case .cancelled:
            finished = true
        }
    }

    /// Queues a successful poll's elements; false when there is nothing to hand out (an
    /// empty or all-repeated batch). A batch with nothing for the consumer to handle has
    /// its cursor saved before anything else happens.
    @inline(never)
    private func accept(_ batch: PolledBatch, staleLogin: Bool) -> Bool {
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
            saveNow = batch.cursor
        }
        guard !items.isEmpty else { return false }
        queue = items
        queueIndex = 0
        return true
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

    private func finishing(_ error: IMClientError) -> IMClientError {
        finished = true
        return error
    }
}
