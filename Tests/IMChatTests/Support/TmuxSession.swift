import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A real terminal for end-to-end tests: a detached tmux session on a private socket,
/// typed into with `send-keys` and read with `capture-pane`.
///
/// Waits are for what the screen shows, polled until it appears; the guard only ends a
/// test that would otherwise hang.
struct TmuxSession {
    let tmux: String
    let socket: String
    let name = "chat"

    /// tmux from the system (`make test` installs Debian's).
    static var tmuxPath: String? {
        ["/usr/bin/tmux", "/usr/local/bin/tmux", "/bin/tmux"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Starts `command` in a new session of `columns`×`rows`.
    static func start(_ command: String, columns: Int = 80, rows: Int = 24, folder: String) async throws -> TmuxSession {
        guard let tmux = tmuxPath else { throw TestFailure("tmux is not installed: run make test, which installs it") }
        let session = TmuxSession(tmux: tmux, socket: folder + "/tmux.sock")
        try await session.run(["-f", "/dev/null", "new-session", "-d", "-s", session.name, "-x", String(columns), "-y", String(rows), command])
        return session
    }

    /// Types `text` literally.
    func type(_ text: String) async throws {
        try await run(["send-keys", "-t", name, "-l", text])
    }

    /// Presses keys by tmux's names (`Enter`, `Tab`, `Escape`, `PPage`, `C-r`, `F1`).
    func press(_ keys: String...) async throws {
        try await run(["send-keys", "-t", name] + keys)
    }

    /// What the pane shows now.
    func screen() async throws -> String {
        try await run(["capture-pane", "-p", "-t", name])
    }

    /// Waits until the screen satisfies `condition`; returns that screen.
    @discardableResult
    func wait(
        for what: String, guardSeconds: Double = 60, _ condition: (String) -> Bool
    ) async throws -> String {
        let deadline = Date().addingTimeInterval(guardSeconds)
        var last = ""
        while Date() < deadline {
            last = try await screen()
            if condition(last) { return last }
            try await Task.sleep(for: .milliseconds(40))
        }
        throw TestFailure("the screen never showed \(what) within \(Int(guardSeconds)) s; it shows:\n\(last)")
    }

    /// Waits until `text` is on the screen.
    @discardableResult
    func wait(for text: String, guardSeconds: Double = 60) async throws -> String {
        try await wait(for: "'\(text)'", guardSeconds: guardSeconds) { $0.contains(text) }
    }

    /// Resizes the window (the program gets SIGWINCH).
    func resize(columns: Int, rows: Int) async throws {
        try await run(["resize-window", "-t", name, "-x", String(columns), "-y", String(rows)])
    }

    /// The process id of the program the pane's shell runs (its only child).
    func programPID() async throws -> pid_t {
        let text = try await run(["display-message", "-p", "-t", name, "#{pane_pid}"])
        guard let shell = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)),
            let children = try? String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8),
            let child = children.split(separator: " ").first.flatMap({ Int32($0) })
        else { throw TestFailure("cannot find the program in tmux's pane (\(text))") }
        return child
    }

    /// Ends the session and its server.
    func kill() async {
        _ = try? await run(["kill-server"])
    }

    /// Runs one tmux command and returns what it printed.
    ///
    /// A `SpawnedProcess`: none of this process's descriptors and a clean signal state
    /// reach tmux. Its server lives on after `new-session` and would otherwise hold other
    /// tests' sockets open, and with the signals a test's thread blocks it would never hear
    /// its panes end nor `kill-server` finish. The output goes to a file, not a pipe, since
    /// `new-session` starts the server, which would hold a pipe open.
    @discardableResult
    private func run(_ arguments: [String]) async throws -> String {
        let outputPath = socket + ".out-" + UUID().uuidString
        defer { unlink(outputPath) }
        let process = try SpawnedProcess(tmux, ["-S", socket] + arguments, output: .appended(toFile: outputPath))
        let status = await process.waitForExit()
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard status == 0 else { throw TestFailure("tmux \(arguments.first ?? "") failed (status \(status)): \(text)") }
        return text
    }
}
