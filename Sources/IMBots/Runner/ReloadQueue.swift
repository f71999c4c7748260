import Synchronization

/// Reloads asked for (SIGHUP, the file watcher, ``BotRunner/reload()``), taken one batch
/// at a time by the running runner. Closed while the runner is not running: then a
/// request is answered at once that nothing was reloaded.
final class ReloadQueue: Sendable {
    /// One reload asked for; `reply` gets the problems that kept old rules in place.
    struct Request: Sendable {
        var reply: (@Sendable ([String]) -> Void)?
    }

    private struct State {
        var open = false
        var pending: [Request] = []
    }

    private let state = Mutex(State())
    private let bell = Doorbell()

    /// Takes requests from now on.
    func open() { state.withLock { $0.open = true } }

    /// Takes no more requests, and answers those still waiting.
    func close() {
        let waiting = state.withLock { state -> [Request] in
            state.open = false
            defer { state.pending = [] }
            return state.pending
        }
        for request in waiting { request.reply?(["the runner stopped before reloading"]) }
    }

    /// Queues `request`; answers it at once when the runner is not running.
    func submit(_ request: Request) {
        let queued = state.withLock { state -> Bool in
            guard state.open else { return false }
            state.pending.append(request)
            return true
        }
        if queued {
            bell.ring()
        } else {
            request.reply?(["the runner is not running"])
        }
    }

    /// The requests waiting, once there are any; nil when the calling task is cancelled.
    func next() async -> [Request]? {
        while !Task.isCancelled {
            let waiting = state.withLock { state -> [Request] in
                defer { state.pending = [] }
                return state.pending
            }
            if !waiting.isEmpty { return waiting }
            await bell.wait()
        }
        return nil
    }
}
