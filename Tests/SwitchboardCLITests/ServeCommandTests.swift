#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import TestSupport
import Testing

/// `switchboard serve` refuses to start, with exit status 2 and the cause, when it
/// cannot do its job.
@Suite("switchboard serve")
struct ServeCommandTests {
    @Test func aPortInUseIsNamedAndExitsTwo() async throws {
        try await withServer { server in
            let sandbox = Sandbox()
            defer { sandbox.remove() }
            let config = try sandbox.write("config.yaml", "log_level: warning\n")
            let address = try #require(server.baseURL.split(separator: "/").last.map(String.init))

            let result = await sandbox.run(["serve", "--config", config, "--listen", address, "--data", sandbox.path("data")])

            #expect(result.status == 2)
            #expect(result.errorLines.contains(
                "switchboard: cannot listen on \(address): address already in use (is another server running there?)"))
        }
    }

    @Test func aDataFolderThatCannotBeMadeIsNamedWithTheReasonAndExitsTwo() async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let config = try sandbox.write("config.yaml", "log_level: warning\n")
        let file = try sandbox.write("not-a-folder", "x")

        let result = await sandbox.run(["serve", "--config", config, "--listen", "127.0.0.1:0", "--data", file + "/data"])

        #expect(result.status == 2)
        #expect(result.errorLines == [
            "switchboard: cannot create the data folder \(file)/data: \(file) exists and is not a folder",
        ])
    }

    @Test(arguments: [
        ("nowhere", "switchboard: --listen 'nowhere' is not HOST:PORT (e.g. 127.0.0.1:8080)"),
        ("127.0.0.1:99999", "switchboard: --listen '127.0.0.1:99999' is not HOST:PORT (e.g. 127.0.0.1:8080)"),
    ])
    func aBadListenAddressIsAUsageError(listen: String, message: String) async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let config = try sandbox.write("config.yaml", "log_level: warning\n")

        let result = await sandbox.run(["serve", "--config", config, "--listen", listen, "--data", sandbox.path("data")])

        #expect(result.status == 2)
        #expect(result.errorLines.first == message)
    }

    /// SIGTERM (and SIGINT) stop `serve` gracefully and it exits 0: the command line's
    /// watcher and the service group's both hear the signal.
    @Test(.serialized, arguments: ["SIGTERM", "SIGINT"])
    func aSignalStopsTheServerGracefully(_ name: String) async throws {
        let signal = name == "SIGTERM" ? SIGTERM : SIGINT
        let binary = try #require(switchboardExecutable, "build the switchboard executable first (swift build)")
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let process = try SpawnedProcess(binary, ["serve", "--listen", "127.0.0.1:0", "--data", sandbox.path("data")])
        defer { process.signal(SIGKILL) }
        try await eventually("serve listening") { process.errors.contains("listening on http://127.0.0.1:") }
        #expect(try await process.stop(signal) == 0)
        try await eventually("the last log line") { process.errors.contains("info server: stopped") }
    }
}
