#if canImport(Glibc)
import Glibc
#endif
import Foundation
import TestSupport
import Testing

/// The web client and the operator console in a real browser: `Browser/web_e2e.py` starts
/// `switchboard up` with the shipped bots, drives headless Chromium through Selenium (two
/// people at a desktop's and a phone's width, the terminal client beside them in tmux),
/// restarts the server under the pages, and writes `report.json` and a screenshot of
/// every screen to `.build/web-test/`. `make test-deps` installs Chromium, its driver and
/// Selenium from Debian.
@Suite struct WebBrowserTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func theWebClientAndTheConsoleEndToEndInChromium() async throws {
        let binary = try #require(switchboardExecutable, "build the switchboard executable first (swift build)")
        for program in ["/usr/bin/chromium", "/usr/bin/chromedriver", "/usr/bin/python3", "/usr/bin/tmux"] {
            try #require(FileManager.default.isExecutableFile(atPath: program), "\(program) is missing: run make test-deps")
        }
        let out = Self.repository.appendingPathComponent(".build/web-test").path
        try? FileManager.default.removeItem(atPath: out)
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let log = out + "/run.log"
        let script = Self.repository.appendingPathComponent("Tests/WebTests/Browser/web_e2e.py").path
        let environment = [
            "PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory(), "PYTHONUNBUFFERED": "1",
            // Selenium finds no driver to download: chromedriver is given by path, and this keeps it offline.
            "SE_OFFLINE": "true",
        ]
        let run = try SpawnedProcess(
            "/usr/bin/python3", [script, "--binary", binary, "--bots", Self.repository.appendingPathComponent("bots").path,
                                 "--out", out],
            environment: environment, output: .appended(toFile: log))
        let status = try await ensuring({
            try await withHangGuard("the browser scenario", hangGuard: .seconds(20 * 60)) { await run.waitForExit() }
        }) {
            if run.exitStatus == nil { run.signal(SIGKILL) }
        }
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        print(output.split(separator: "\n").filter { $0.hasPrefix("MEASURE") || $0.hasPrefix("SKIP") || $0.contains("passed,") }
            .joined(separator: "\n"))
        #expect(status == 0, "the browser scenario failed (\(out)/run.log):\n\(output.suffix(6000))")
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/report.json")))
            as? [String: Any]
        #expect((report?["failed"] as? Int) == 0)
        #expect((report?["passed"] as? Int ?? 0) >= 40)
        for screen in ["login-desktop", "register-phone", "sessions-desktop", "contacts-desktop", "dialogue-desktop",
                       "profile-desktop", "dialogue-phone", "contacts-phone", "profile-phone", "console-failing",
                       "console-running"] {
            #expect(FileManager.default.fileExists(atPath: "\(out)/\(screen).png"), "no screenshot \(screen)")
        }
    }
}
