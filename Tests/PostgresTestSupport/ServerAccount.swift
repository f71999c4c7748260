import Foundation

/// The account the test server runs as: `postgres` when the tests run as root (initdb
/// refuses root), else the current user.
struct ServerAccount {
    /// User and group ids to switch to, or nil to stay who we are.
    var ids: (uid: uid_t, gid: gid_t)?

    static func current() throws -> ServerAccount {
        guard getuid() == 0 else { return ServerAccount(ids: nil) }
        guard let entry = getpwnam("postgres") else {
            throw PostgresTestError("running as root, and there is no postgres user to run the server as (install Debian's postgresql)")
        }
        return ServerAccount(ids: (entry.pointee.pw_uid, entry.pointee.pw_gid))
    }

    /// Hands files over to the server's account.
    func give(_ paths: String...) throws {
        guard let ids else { return }
        for path in paths where chown(path, ids.uid, ids.gid) != 0 {
            throw PostgresTestError("chown \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// The command line of the long-running server: through `setpriv`, which switches to
    /// the account and sets a parent-death signal (SIGINT, PostgreSQL's fast shutdown)
    /// before starting it, with no process in between.
    func command(_ executable: String, _ arguments: [String]) -> [String] {
        var command = ["/usr/bin/setpriv"]
        if let ids { command += ["--reuid=\(ids.uid)", "--regid=\(ids.gid)", "--init-groups"] }
        return command + ["--pdeathsig", "SIGINT", "--", executable] + arguments
    }

    /// Runs a one-off program (`initdb`) as the account and waits for it; throws with its
    /// output when it fails.
    func run(_ executable: String, _ arguments: [String], in folder: String) throws {
        let process = Process()
        if ids != nil {
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
            process.arguments = ["-u", "postgres", "--", executable] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        }
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = String(decoding: printed, as: UTF8.self)
            throw PostgresTestError("\(executable) exited with \(process.terminationStatus):\n\(text.suffix(2000))")
        }
    }
}
