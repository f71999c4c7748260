import Foundation
import TestSupport
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

extension TestHTTPServer {
    enum Command: Sendable { case release, stop }

    /// Why the server could not start.
    struct SetupError: Error, CustomStringConvertible {
        var description: String
    }

    /// The server's socket loop.
    ///
    /// `@unchecked Sendable` because: sockets and `connections` are touched only on the loop
    /// thread; other threads only append to `commands` (a Mutex) and write to the wake-up pipe,
    /// whose descriptors stay open until the loop object is freed.
    final class Loop: @unchecked Sendable {
        final class Connection {
            let fd: Int32
            var input: [UInt8] = []
            var output: [UInt8] = []
            var parked: Reply?
            var holding = false
            var closeAfterWrite = false
            var closed = false
            init(fd: Int32) { self.fd = fd }
        }

        let port: Int
        private let listener: Int32
        private let wakeRead: Int32
        private let wakeWrite: Int32
        private let commands = Mutex<[Command]>([])
        private let script: @Sendable (ReceivedRequest) -> Action
        private let state: State
        private var connections: [Connection] = []

        init(script: @escaping @Sendable (ReceivedRequest) -> Action, state: State) throws {
            self.script = script
            self.state = state
            let socket = try LoopbackSocket(listenBacklog: 1024, nonBlocking: true)
            listener = socket.descriptor
            port = socket.port
            var pipeEnds: [Int32] = [0, 0]
            guard pipe(&pipeEnds) == 0 else {
                close(listener)
                throw SetupError(description: "pipe: \(String(cString: strerror(errno)))")
            }
            wakeRead = pipeEnds[0]
            wakeWrite = pipeEnds[1]
            for fd in pipeEnds { Self.makeNonBlocking(fd) }
        }

        static func makeNonBlocking(_ fd: Int32) {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }

        deinit {
            close(wakeRead)
            close(wakeWrite)
        }

        func start() {
            let thread = Thread { [self] in run() }
            thread.name = "test-http"
            thread.start()
        }

        func command(_ command: Command) {
            commands.withLock { $0.append(command) }
            var byte: UInt8 = 1
            _ = Glibc.write(wakeWrite, &byte, 1)
        }

        func stop() { command(.stop) }

        // MARK: Loop thread

        private func run() {
            var scratch = [UInt8](repeating: 0, count: 65536)
            while true {
                let open = connections
                var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
                for connection in open {
                    let events = Int16(POLLIN) | (connection.output.isEmpty ? 0 : Int16(POLLOUT))
                    fds.append(pollfd(fd: connection.fd, events: events, revents: 0))
                }
                guard poll(&fds, nfds_t(fds.count), -1) >= 0 || errno == EINTR else { break }
                if fds[0].revents != 0 {
                    while read(wakeRead, &scratch, scratch.count) > 0 {}
                    let pending = commands.withLock { list in defer { list.removeAll() }; return list }
                    if pending.contains(where: { if case .stop = $0 { true } else { false } }) { break }
                    releaseParked()
                }
                if fds[1].revents != 0 { acceptAll() }
                for (index, connection) in open.enumerated() where !connection.closed {
                    let events = fds[index + 2].revents
                    if events & Int16(POLLOUT) != 0 { flush(connection) }
                    if events & Int16(POLLIN | POLLHUP | POLLERR) != 0, !connection.closed {
                        receive(connection, &scratch)
                    }
                }
            }
            for connection in connections { close(connection.fd) }
            connections.removeAll()
            close(listener)
        }

        private func acceptAll() {
            while true {
                let fd = accept(listener, nil, nil)
                guard fd >= 0 else { return }
                Self.makeNonBlocking(fd)
                connections.append(Connection(fd: fd))
                state.accepted()
            }
        }

        private func receive(_ connection: Connection, _ scratch: inout [UInt8]) {
            while true {
                let count = recv(connection.fd, &scratch, scratch.count, 0)
                if count > 0 {
                    connection.input.append(contentsOf: scratch[0..<count])
                } else if count < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                    break
                } else {
                    return finish(connection)  // the client closed, or the socket failed
                }
            }
            serve(connection)
        }

        /// Handles complete requests in order; a parked or held request blocks the ones behind it.
        private func serve(_ connection: Connection) {
            while !connection.closed, connection.parked == nil, !connection.holding,
                  let request = Self.parse(&connection.input) {
                state.received(request)
                let closeAfter = request.header("Connection")?.lowercased() == "close"
                switch script(request) {
                case .respond(let reply):
                    connection.closeAfterWrite = closeAfter
                    output(Self.serialize(reply, close: closeAfter, head: request.method == "HEAD"), to: connection)
                case .park(let reply):
                    connection.parked = reply
                    state.parked()
                case .hold:
                    connection.holding = true
                    state.parked()
                case .close:
                    finish(connection)
                case .halfResponse(let reply):
                    let whole = Self.serialize(reply, close: true)
                    connection.closeAfterWrite = true
                    output(Array(whole.prefix(whole.count - reply.body.count / 2)), to: connection)
                case .respondUntilClose(let reply):
                    var head = "HTTP/1.1 \(reply.status) Reply\r\nConnection: close\r\n"
                    for (name, value) in reply.headers { head += "\(name): \(value)\r\n" }
                    connection.closeAfterWrite = true
                    output(Array((head + "\r\n").utf8) + Array(reply.body), to: connection)
                }
            }
        }

        private func releaseParked() {
            for connection in connections where !connection.closed {
                guard let reply = connection.parked else { continue }
                connection.parked = nil
                output(Self.serialize(reply, close: false), to: connection)
                serve(connection)
            }
        }

        private func output(_ bytes: [UInt8], to connection: Connection) {
            connection.output.append(contentsOf: bytes)
            flush(connection)
        }

        private func flush(_ connection: Connection) {
            while !connection.output.isEmpty {
                let count = connection.output.withUnsafeBytes { bytes in
                    send(connection.fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
                }
                if count > 0 {
                    connection.output.removeFirst(count)
                } else if count < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                    return
                } else {
                    return finish(connection)
                }
            }
            if connection.closeAfterWrite { finish(connection) }
        }

        private func finish(_ connection: Connection) {
            guard !connection.closed else { return }
            connection.closed = true
            close(connection.fd)
            connections.removeAll { $0 === connection }
        }
    }
}
