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
    /// output (kept in `folder`/`<program>.log`) when it fails.
    func run(_ executable: String, _ arguments: [String], in folder: String) throws {
        let command =
            ids != nil ? ["/usr/sbin/runuser", "-u", "postgres", "--", executable] + arguments : [executable] + arguments
        let log = folder + "/" + (executable.split(separator: "/").last.map(String.init) ?? "program") + ".log"
        let pid = try ChildSpawn.start(
            command[0], Array(command.dropFirst()), directory: folder, standardOutput: .file(log),
            standardError: .file(log))
        let status = ChildSpawn.waitBlocking(pid)
        guard status == 0 else {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw PostgresTestError("\(executable) exited with \(status):\n\(text.suffix(2000))")
        }
    }
}
