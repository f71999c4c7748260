import Foundation
import TestSupport
import Testing

private let systemdAnalyze = "/usr/bin/systemd-analyze"

/// The units of `examples/systemd/` as systemd reads them: `systemd-analyze verify`
/// finds nothing wrong (an unknown or misspelt key, a bad value, a missing command), and
/// `systemd-analyze security` rates the services' exposure low, so the hardening is
/// really there. The units name `/usr/local/bin/switchboard`; the check points them at
/// the built executable, which verify wants to exist.
@Suite(.enabled(
    if: FileManager.default.isExecutableFile(atPath: systemdAnalyze),
    "systemd-analyze is missing (Debian's systemd has it)"))
struct SystemdUnitTests {
    static let analyze = systemdAnalyze
    static let units = ["switchboard-server.service", "switchboard-runner.service", "switchboard-backup.service", "switchboard-backup.timer"]

    static var examples: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("examples/systemd")
    }

    /// Runs systemd-analyze; its exit status and everything it wrote to standard error.
    static func run(_ arguments: [String]) async throws -> (status: Int32, errors: String) {
        let process = try SpawnedProcess(analyze, arguments)
        let status = try await withHangGuard("systemd-analyze \(arguments.first ?? "")") { await process.waitForExit() }
        return (status, try await process.allErrors())
    }

    /// The units in a folder of their own, with ExecStart pointing at `binary`.
    static func copies(binary: String) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("units-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for unit in units {
            let text = try String(contentsOf: examples.appendingPathComponent(unit), encoding: .utf8)
            try text.replacingOccurrences(of: "/usr/local/bin/switchboard", with: binary)
                .write(toFile: folder + "/" + unit, atomically: true, encoding: .utf8)
        }
        return folder
    }

    @Test func theFolderHoldsTheUnitsThisChecks() throws {
        let shipped = try FileManager.default.contentsOfDirectory(atPath: Self.examples.path).sorted()
        #expect(shipped == Self.units.sorted())
    }

    @Test func verifyFindsNothingToComplainAbout() async throws {
        let binary = try #require(switchboardExecutable, "build the switchboard executable first (swift build)")
        let folder = try Self.copies(binary: binary)
        defer { try? FileManager.default.removeItem(atPath: folder) }

        let (status, errors) = try await Self.run(["verify", "--man=no", "--recursive-errors=no"] + Self.units.map { folder + "/" + $0 })

        #expect(status == 0, "systemd-analyze verify: \(errors)")
        #expect(errors.isEmpty, "systemd-analyze verify: \(errors)")
    }

    /// Exposure on systemd's scale of 0 (locked down) to 10 (unprotected): the services
    /// stay at 2 or below ("OK").
    @Test(arguments: ["switchboard-server.service", "switchboard-runner.service", "switchboard-backup.service"])
    func theServicesAreHardened(_ unit: String) async throws {
        let binary = try #require(switchboardExecutable, "build the switchboard executable first (swift build)")
        let folder = try Self.copies(binary: binary)
        defer { try? FileManager.default.removeItem(atPath: folder) }

        let (status, errors) = try await Self.run(["security", "--offline=true", "--threshold=20", folder + "/" + unit])

        #expect(status == 0, "systemd-analyze security rates \(unit) above 2.0: \(errors)")
    }

    /// The settings the operations guide promises, in both long-running services.
    @Test(arguments: ["switchboard-server.service", "switchboard-runner.service"])
    func theServicesHaveTheSettingsTheGuideNames(_ unit: String) throws {
        let lines = Set(try String(contentsOf: Self.examples.appendingPathComponent(unit), encoding: .utf8)
            .split(separator: "\n").map(String.init))
        let missing = [
            "DynamicUser=yes", "ProtectSystem=strict", "NoNewPrivileges=yes", "LimitNOFILE=65536",
            "Restart=on-failure", "ExecReload=/bin/kill -HUP $MAINPID",
        ].filter { !lines.contains($0) }
        #expect(missing.isEmpty, "\(unit) lacks \(missing)")
        #expect(lines.contains { $0.hasPrefix("StateDirectory=") }, "\(unit) has no StateDirectory")
    }

    /// The runner's status 2 (every bot file broken, a bad configuration) waits for a
    /// person instead of a restart every 2 s, as the guide says.
    @Test func theRunnerIsNotRestartedAfterAConfigurationError() throws {
        let text = try String(contentsOf: Self.examples.appendingPathComponent("switchboard-runner.service"), encoding: .utf8)
        #expect(text.split(separator: "\n").contains("RestartPreventExitStatus=2"))
    }
}
