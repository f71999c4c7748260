#if canImport(Glibc)
import Glibc
#endif
import Foundation
import IMServer
import Logging
import TestSupport
import Testing

/// One server per data folder: a second one is refused (two would each count feed
/// positions of their own in one database), and the folder is free again once the
/// first has stopped.
@Suite struct DataFolderTests {
    @Test func aSecondServerOnAFolderInUseIsRefusedUntilTheFirstStops() async throws {
        let server = try await TestServer.start()
        let config = TestServer.configuration(directory: server.directory)
        let error = await #expect(throws: ServerStartError.self) {
            _ = try await IMServerApp(configuration: config, logger: Logger(label: "t", sink: MemoryLogSink()))
        }
        #expect(error?.message == "a switchboard server is running on the data folder \(server.directory) (pid \(getpid())); stop it first")

        let next = try await server.restart()
        await next.stop()
        next.removeData()
    }
}
