import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Reads the terminal's input on a thread of its own (a blocking `poll`/`read` must not
/// hold a thread of the cooperative pool) and hands decoded keys to `deliver`.
///
/// `poll` wakes every 100 ms to notice `stop`; a lone ESC waits 50 ms for the rest of a
/// sequence (Alt with a key is ESC and the key) before it counts as the Esc key. `deliver(nil)` says the terminal is gone.
final class TerminalReader: Sendable {
    private let fd: Int32
    private let deliver: @Sendable ([Key]?) -> Void
    private let stopped = Atomic<Bool>(false)
    private let finished = Mutex<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    init(fd: Int32, deliver: @escaping @Sendable ([Key]?) -> Void) {
        self.fd = fd
        self.deliver = deliver
    }

    func start() {
        let thread = Thread { [self] in
            loop()
            if !stopped.load(ordering: .relaxed) { deliver(nil) }
            let waiters = finished.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.done = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
        thread.name = "switchboard-chat-input"
        thread.start()
    }

    /// Asks the thread to end and waits until it has.
    func stop() async {
        stopped.store(true, ordering: .relaxed)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = finished.withLock { state -> Bool in
                if !state.done { state.waiters.append(continuation) }
                return state.done
            }
            if done { continuation.resume() }
        }
    }

    private func loop() {
        var decoder = KeyDecoder()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !stopped.load(ordering: .relaxed) {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, decoder.hasPending ? 50 : 100)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if ready == 0 {
                let keys = decoder.flush()
                if !keys.isEmpty { deliver(keys) }
                continue
            }
            if descriptor.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0, descriptor.revents & Int16(POLLIN) == 0 {
                return  // the terminal is gone
            }
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return
            }
            if count == 0 { return }
            let keys = decoder.feed(buffer[0..<count])
            if !keys.isEmpty { deliver(keys) }
        }
    }
}
