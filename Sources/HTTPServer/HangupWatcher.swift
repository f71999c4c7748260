import CMicroHTTPD
import Foundation
import Synchronization

/// Watches the sockets of requests with a deferred answer (parked long-polls) for
/// hang-ups, and cancels the deferred answer when its client goes away (MHD does not
/// look at suspended connections at all).
///
/// One thread waits in `epoll_wait` for `EPOLLRDHUP` (not `EPOLLIN`: a pipelined next
/// request is not a hang-up). Events carry a token rather than the descriptor, so a
/// descriptor reused after a close cannot be mistaken for the parked one.
final class HangupWatcher: Sendable {
    private struct State {
        var parked: [UInt64: ConnectionLink] = [:]
        var nextToken: UInt64 = 1
        var cancellingAll = false
    }

    private let state = Mutex(State())
    private let epollFD: Int32
    private let wakeFD: Int32
    private let counters: ServerCounters
    private let log: @Sendable (String) -> Void
    private let started = Atomic<Bool>(false)
    private let stopped = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private static let wakeToken: UInt64 = 0

    init(counters: ServerCounters, log: @escaping @Sendable (String) -> Void) {
        self.counters = counters
        self.log = log
        epollFD = sb_epoll_create()
        wakeFD = sb_eventfd_create()
    }

    deinit {
        if epollFD >= 0 { close(epollFD) }
        if wakeFD >= 0 { close(wakeFD) }
    }

    /// Starts the watching thread.
    func start() throws(HTTPServerError) {
        guard epollFD >= 0, wakeFD >= 0,
              sb_epoll_watch_readable(epollFD, wakeFD, HangupWatcher.wakeToken) == 0
        else {
            throw HTTPServerError(
                code: .startFailed,
                message: "cannot create the hang-up watcher: \(String(cString: strerror(errno)))")
        }
        started.store(true, ordering: .releasing)
        let thread = Thread { [self] in run() }
        thread.name = "http-hangups"
        thread.stackSize = 256 * 1024
        thread.start()
    }

    /// Stops the thread and waits for it to end.
    func stop() {
        guard started.load(ordering: .acquiring),
              !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var one: UInt64 = 1
        _ = write(wakeFD, &one, MemoryLayout<UInt64>.size)
        finished.wait()
    }

    /// Starts watching the socket of a request whose answer is now deferred: a hang-up or
    /// shutdown cancels `deferred`.
    func enter(_ link: ConnectionLink, deferred: DeferredResponse) {
        let cancelNow = state.withLock { state -> Bool in
            guard link.parkToken == 0 else { return false }
            link.deferred = deferred
            let token = state.nextToken
            state.nextToken += 1
            state.parked[token] = link
            link.parkToken = token
            counters.parkedRequests.add(1, ordering: .relaxed)
            if !watch(link.connection, token: token) {
                log("cannot watch a parked connection for hang-ups: \(String(cString: strerror(errno)))")
            }
            return state.cancellingAll
        }
        if cancelNow { deferred.cancel() }
    }

    /// The deferral a request started, if any.
    func deferral(of link: ConnectionLink) -> DeferredResponse? {
        state.withLock { _ in link.deferred }
    }

    /// Stops watching the request's socket once its deferred answer has ended.
    ///
    /// The socket stays in the epoll set, armed with the old token until the connection
    /// closes (the kernel then drops it) or parks again (`watch` re-arms it): taking it
    /// out and putting it back for every poll cost two epoll_ctl calls, with an
    /// allocation and an RCU free, per poll. A hang-up reported under an old token finds
    /// no parked request and is ignored; being one-shot, it fires once.
    func exit(_ link: ConnectionLink) {
        state.withLock { state in
            guard link.parkToken != 0 else { return }
            state.parked[link.parkToken] = nil
            link.parkToken = 0
            link.deferred = nil
            counters.parkedRequests.subtract(1, ordering: .relaxed)
        }
    }

    /// Arms the one-shot hang-up watch of a connection's socket with `token`: adds the
    /// socket to the set the first time, re-arms it after. Under the state lock.
    private func watch(_ connection: ConnectionState, token: UInt64) -> Bool {
        if connection.inHangupSet {
            if sb_epoll_rewatch_hangup(epollFD, connection.fd, token) == 0 { return true }
            guard errno == ENOENT else { return false }
        }
        var added = sb_epoll_watch_hangup(epollFD, connection.fd, token) == 0
        if !added && errno == EEXIST {
            added = sb_epoll_rewatch_hangup(epollFD, connection.fd, token) == 0
        }
        connection.inHangupSet = added
        return added
    }

    /// Cancels every deferred answer, and every one deferred from now on (shutdown).
    ///
    /// The handles are cancelled outside the lock: their handlers may answer at once,
    /// which takes it.
    func cancelAll() {
        let deferred = state.withLock { state -> [DeferredResponse] in
            state.cancellingAll = true
            return state.parked.values.compactMap(\.deferred)
        }
        for handle in deferred { handle.cancel() }
    }

    private func run() {
        var tokens = [UInt64](repeating: 0, count: 64)
        while !stopped.load(ordering: .acquiring) {
            let count = tokens.withUnsafeMutableBufferPointer { buffer in
                sb_epoll_wait_tokens(epollFD, buffer.baseAddress, Int32(buffer.count), -1)
            }
            if count < 0 {
                if errno == EINTR { continue }
                log("hang-up watcher stopped: epoll_wait: \(String(cString: strerror(errno)))")
                break
            }
            for token in tokens.prefix(Int(count)) where token != HangupWatcher.wakeToken {
                hungUp(token)
            }
        }
        finished.signal()
    }

    private func hungUp(_ token: UInt64) {
        let deferred = state.withLock { state -> DeferredResponse? in
            guard let link = state.parked[token] else { return nil }
            counters.clientHangups.add(1, ordering: .relaxed)
            return link.deferred
        }
        deferred?.cancel()
    }
}
