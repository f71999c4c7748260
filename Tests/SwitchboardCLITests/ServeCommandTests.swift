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

    /// With a log file, SIGHUP (logrotate's postrotate, systemd's reload) reopens it: after
    /// the file was moved away the lines go to a new file at the path, the moved one
    /// keeps what came before, and the server serves on.
    @Test(.serialized, arguments: [false, true])
    func sighupReopensTheLogFileAndOtherwiseDoesNotStopTheServer(withLogFile: Bool) async throws {
        let binary = try #require(switchboardExecutable, "build the switchboard executable first (swift build)")
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let log = sandbox.path("logs/server.log")
        try FileManager.default.createDirectory(atPath: sandbox.path("logs"), withIntermediateDirectories: true)
        let process = try SpawnedProcess(
            binary, ["serve", "--listen", "127.0.0.1:0", "--data", sandbox.path("data")] + (withLogFile ? ["--log-file", log] : []))
        defer { process.signal(SIGKILL) }
        let started = { withLogFile ? (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" : process.errors }
        try await eventually("serve listening") { started().contains("listening on http://127.0.0.1:") }
        if withLogFile {
            try FileManager.default.moveItem(atPath: log, toPath: log + ".1")
        }

        process.signal(SIGHUP)
        if withLogFile {
            try await eventually("a new log file") {
                ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("info log: SIGHUP: reopened the log file \(log)")
            }
        }
        process.signal(SIGTERM)
        #expect(await process.waitForExit() == 0)

        let errors = try await process.allErrors()
        if withLogFile {
            let before = try String(contentsOfFile: log + ".1", encoding: .utf8)
            let after = try String(contentsOfFile: log, encoding: .utf8)
            #expect(before.contains("info server: switchboard server listening on http://127.0.0.1:"))
            #expect(!before.contains("SIGHUP"))
            #expect(after.contains("info server: stopped"))
            #expect(!after.contains("listening"))
            #expect(errors.isEmpty, "standard error: \(errors)")
        } else {
            #expect(errors.contains("info server: stopped"))
        }
    }
}
