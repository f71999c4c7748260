import CCurl
import Foundation
import Synchronization

/// Drives every transfer of one `CurlTransport` with libcurl's multi interface on one thread.
///
/// Callers hand transfers over through `inbox` (a Mutex) and wake the thread with
/// `curl_multi_wakeup`; the thread adds them, runs `curl_multi_perform`, resumes the
/// finished ones and sleeps in `curl_multi_poll`. A thousand parked long-polls cost one
/// thread plus a socket and a little memory each.
///
/// `@unchecked Sendable` because: `active`, `idle` and the multi handle's transfers are
/// touched only on the loop thread; what other threads touch is inside `inbox`. `multi`
/// is read by other threads only inside `inbox` and only before `stopping` is set; the
/// loop thread clears it inside `inbox` after seeing `stopping`.
final class CurlEventLoop: @unchecked Sendable {
    private struct Inbox {
        var adds: [CurlTransfer] = []
        var cancels: [CurlTransfer] = []
        var wakePending = false
        var stopping = false
        var finished = false
        var stopWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// Why the loop could not start (bad configuration, libcurl failure), or nil.
    let startupError: TransportError?
    /// How many threads this loop started: one, by construction (checked by the tests).
    let threadsStarted = Atomic<Int>(0)

    private let inbox: Mutex<Inbox>
    private let userAgent: String
    private var multi: CurlMulti?
    private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    private var idle: [CurlEasy] = []
    /// Idle easy handles kept for reuse; more are made on demand and freed when done.
    private static let idleLimit = 64
    /// Longest sleep in `curl_multi_poll`; libcurl wakes earlier for its own timers.
    private static let pollMilliseconds: Int32 = 1000

    init(configuration: CurlTransport.Configuration) {
        userAgent = configuration.userAgent
        do {
            try configuration.validate()
            let multi = try CurlMulti()
            try multi.set(CURLMOPT_MAX_HOST_CONNECTIONS, configuration.maxConnectionsPerHost,
                          "CURLMOPT_MAX_HOST_CONNECTIONS")
            try multi.set(CURLMOPT_MAX_TOTAL_CONNECTIONS, configuration.maxTotalConnections,
                          "CURLMOPT_MAX_TOTAL_CONNECTIONS")
            // The connection cache must hold every parked long-poll's connection, or each
            // poll would reconnect.
            try multi.set(CURLMOPT_MAXCONNECTS, configuration.maxCachedConnections, "CURLMOPT_MAXCONNECTS")
            self.multi = multi
            startupError = nil
            inbox = Mutex(Inbox())
        } catch {
            startupError = error
            inbox = Mutex(Inbox(stopping: true, finished: true))
            return
        }
        let thread = Thread { [self] in run() }
        thread.name = "sb-curl"
        thread.start()
    }

    // MARK: Any thread

    /// Hands `transfer` to the loop; false once the loop is stopping.
    func enqueue(_ transfer: CurlTransfer) -> Bool {
        inbox.withLock { box in
            guard !box.stopping else { return false }
            box.adds.append(transfer)
            wake(&box)
            return true
        }
    }

    /// Asks the loop to abandon `transfer` (a no-op once it finished).
    func enqueueCancel(_ transfer: CurlTransfer) {
        inbox.withLock { box in
            guard !box.stopping else { return }  // stopping cancels everything anyway
            box.cancels.append(transfer)
            wake(&box)
        }
    }

    /// Starts stopping without waiting: outstanding requests end with `.cancelled`.
    func requestStop() {
        inbox.withLock { box in
            guard !box.stopping else { return }
            box.stopping = true
            multi?.wakeup()
        }
    }

    /// Stops the loop and returns once its thread has failed every request and let go of libcurl.
    func shutdown() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let finished = inbox.withLock { box in
                guard !box.finished else { return true }
                box.stopWaiters.append(continuation)
                if !box.stopping {
                    box.stopping = true
                    multi?.wakeup()
                }
                return false
            }
            if finished { continuation.resume() }
        }
    }

    private func wake(_ box: inout Inbox) {
        guard !box.wakePending else { return }
        box.wakePending = true
        multi?.wakeup()
    }

    // MARK: Loop thread

    private func run() {
        threadsStarted.add(1, ordering: .relaxed)
        guard let multi else { return }
        while true {
            let (adds, cancels, stopping) = inbox.withLock { box in
                box.wakePending = false
                defer {
                    box.adds.removeAll(keepingCapacity: true)
                    box.cancels.removeAll(keepingCapacity: true)
                }
                return (box.adds, box.cancels, box.stopping)
            }
            if stopping {
                for transfer in adds { transfer.finish(.failure(shutdownError(transfer, written: false))) }
                break
            }
            for transfer in adds { start(transfer, multi) }
            for transfer in cancels { cancel(transfer, multi) }
            do {
                try multi.perform()
                collectFinished(multi)
                try multi.poll(milliseconds: Self.pollMilliseconds)
            } catch {
                // The multi handle itself failed: no transfer can be trusted to progress.
                failAll(multi, error)
            }
        }
        tearDown(multi)
    }

    private func start(_ transfer: CurlTransfer, _ multi: CurlMulti) {
        let easy: CurlEasy
        if let reused = idle.popLast() {
            easy = reused
        } else {
            do {
                easy = try CurlEasy()
            } catch {
                transfer.finish(.failure(error))
                return
            }
        }
        do {
            try transfer.attach(to: easy, userAgent: userAgent)
            try multi.add(easy)
            active[easy.handle] = transfer
        } catch {
            transfer.detach()
            recycle(easy)
            transfer.finish(.failure(error))
        }
    }

    private func collectFinished(_ multi: CurlMulti) {
        while let (handle, code) = multi.nextFinished() {
            guard let transfer = active.removeValue(forKey: handle) else { continue }
            let outcome = transfer.outcome(for: code)
            end(transfer, multi)
            transfer.finish(outcome)
        }
    }

    private func cancel(_ transfer: CurlTransfer, _ multi: CurlMulti) {
        guard let easy = transfer.easy, active[easy.handle] === transfer else { return }  // already done
        active[easy.handle] = nil
        let error = TransportError.cancelled(target: transfer.target.hostPort,
                                             requestNotSent: !transfer.requestWritten)
        end(transfer, multi)
        transfer.finish(.failure(error))
    }

    private func failAll(_ multi: CurlMulti, _ error: TransportError) {
        let transfers = active.values
        active.removeAll()
        for transfer in transfers {
            end(transfer, multi)
            transfer.finish(.failure(error))
        }
    }

    private func tearDown(_ multi: CurlMulti) {
        let leftovers = inbox.withLock { box in
            defer { box.adds.removeAll() }
            return box.adds
        }
        for transfer in leftovers { transfer.finish(.failure(shutdownError(transfer, written: false))) }
        let transfers = active.values
        active.removeAll()
        for transfer in transfers {
            let error = shutdownError(transfer, written: transfer.requestWritten)
            end(transfer, multi)
            transfer.finish(.failure(error))
        }
        idle.removeAll()
        // Dropping the multi handle closes the cached connections.
        let waiters = inbox.withLock { box in
            self.multi = nil
            box.finished = true
            defer { box.stopWaiters.removeAll() }
            return box.stopWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Takes `transfer`'s handle out of the multi handle and keeps the handle for reuse.
    private func end(_ transfer: CurlTransfer, _ multi: CurlMulti) {
        guard let easy = transfer.easy else { return }
        // Removing a handle the multi handle owns cannot fail short of a libcurl bug; the
        // handle is dropped rather than reused if it does.
        let removed = (try? multi.remove(easy)) != nil
        transfer.detach()
        if removed { recycle(easy) }
    }

    private func recycle(_ easy: CurlEasy) {
        if idle.count < Self.idleLimit { idle.append(easy) }
    }

    private func shutdownError(_ transfer: CurlTransfer, written: Bool) -> TransportError {
        .cancelled(target: transfer.target.hostPort, shutdown: true, requestNotSent: !written)
    }
}
