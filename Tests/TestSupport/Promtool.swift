import Foundation

/// Prometheus's own linter, `promtool check metrics` (Debian's `prometheus`, which `make
/// test` installs): the check the server's and the runner's `/metrics` must pass.
public enum Promtool {
    public static let path = "/usr/bin/promtool"

    /// Whether it is there (a suite that needs it is skipped otherwise, saying why).
    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// Why a test needing it is skipped when it is missing.
    public static let missing = "promtool is missing: `make test` installs Debian's prometheus package, which has it"

    /// What `promtool check metrics` says of an exposition text (written to a file in
    /// `folder` first): its exit status and everything it complained about.
    public static func check(_ text: Data, folder: String) async throws -> (status: Int32, complaints: String) {
        let file = folder + "/metrics-\(UUID().uuidString).txt"
        try text.write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let check = try SpawnedProcess(path, ["check", "metrics"], standardInput: file)
        defer { check.signal(SIGKILL) }
        let status = try await withHangGuard("promtool check metrics") { await check.waitForExit() }
        return (status, try await check.allErrors())
    }
}
