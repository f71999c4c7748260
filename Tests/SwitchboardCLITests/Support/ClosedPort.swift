#if canImport(Glibc)
import Glibc
#endif
import TestSupport

/// A port on 127.0.0.1 that is bound but not listening: connecting is refused, and no
/// other test can take the port while it is held.
struct ClosedPort {
    let descriptor: Int32
    let number: Int

    init() throws {
        let socket = try LoopbackSocket()
        descriptor = socket.descriptor
        number = socket.port
    }

    func close() { Glibc.close(descriptor) }
}
