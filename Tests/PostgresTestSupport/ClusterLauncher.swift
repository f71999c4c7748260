import Foundation
import IMStore
import Synchronization

/// Makes and starts a throw-away cluster: sweeps what killed runs left, runs `initdb`,
/// starts `postgres` on a free loopback port, waits until it answers, and arranges for
/// it to stop and its folder to go when the process exits.
struct ClusterLauncher {
    /// Every test cluster folder's name starts with this, under the temporary directory.
    static let prefix = "switchboard-pgtest-"

    /// Durable clusters fsync like a production one (for benchmarks); the tests' do not.
    var durable = false

    func launch() throws -> PostgresTestCluster {
        Self.sweepStale()
        let binaries = try Self.binaryDirectory()
        let owner = try ServerAccount.current()
        let folder = FileManager.default.temporaryDirectory.path + "/" + Self.prefix
            + "\(getpid())-\(UUID().uuidString.prefix(8).lowercased())"
        try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        // Who made the folder, so the sweep of a later run can tell a live one from a leftover.
        try ProcessIdentity.current.description.write(toFile: folder + "/owner", atomically: true, encoding: .utf8)
        var generator = SystemRandomNumberGenerator()
        let password = (0..<4).map { _ in String(generator.next(), radix: 16) }.joined()
        try password.write(toFile: folder + "/password", atomically: true, encoding: .utf8)
        try owner.give(folder, folder + "/password")

        try owner.run(
            binaries + "/initdb",
            ["-D", folder + "/data", "-U", "switchboard_test", "--pwfile=" + folder + "/password",
             "--auth=scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync"],
            in: folder)

        var lastLog = ""
        for _ in 0..<5 {
            let port = try Self.freePort()
            let command = owner.command(binaries + "/postgres", serverArguments(folder: folder, port: port))
            let log = folder + "/postgres.log"
            let server = try Postmaster(command, log: log, folder: folder)
            if try Self.waitUntilReady(port: port, password: password, server: server) {
                ExitCleanup.register(pid: server.pid, folder: folder)
                return PostgresTestCluster(port: port, folder: folder, password: password, server: server, command: command)
            }
            lastLog = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            // Another process took the port between the probe and the server's bind: try another.
            guard lastLog.contains("could not bind") || lastLog.contains("Address already in use") else { break }
        }
        try? FileManager.default.removeItem(atPath: folder)
        throw PostgresTestError("postgres did not start; its log:\n\(lastLog.suffix(2000))")
    }

    /// The `postgres` arguments: loopback only on `port`, the socket in `folder`, and
    /// durability as `durable` says.
    private func serverArguments(folder: String, port: Int) -> [String] {
        let settings = durable
            ? ["fsync=on", "synchronous_commit=on", "full_page_writes=on"]
            : ["fsync=off", "synchronous_commit=off", "full_page_writes=off"]
        var arguments = ["-D", folder + "/data", "-p", String(port), "-k", folder]
        for setting in ["listen_addresses=127.0.0.1", "max_connections=300", "shared_buffers=32MB"] + settings {
            arguments += ["-c", setting]
        }
        return arguments
    }

    /// Waits for the server to accept a login: true once it does, false when it exited.
    static func waitUntilReady(port: Int, password: String, server: Postmaster) throws -> Bool {
        let configuration = PostgresConfiguration(
            url: "postgresql://switchboard_test:\(password)@127.0.0.1:\(port)/postgres", connectTimeout: 2)
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if server.hasExited { return false }
            if (try? PostgresConnection(configuration: configuration)) != nil { return true }
            usleep(20_000)
        }
        throw PostgresTestError("postgres on port \(port) did not accept connections within 60 s")
    }

    /// The folder of `initdb` and `postgres`: `SWITCHBOARD_POSTGRES_BIN`, else the newest
    /// `/usr/lib/postgresql/<version>/bin` (Debian's layout).
    static func binaryDirectory() throws -> String {
        if let path = ProcessInfo.processInfo.environment["SWITCHBOARD_POSTGRES_BIN"] { return path }
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .compactMap(Int.init).sorted()
        for version in versions.reversed() where FileManager.default.isExecutableFile(atPath: "\(root)/\(version)/bin/initdb") {
            return "\(root)/\(version)/bin"
        }
        throw PostgresTestError(
            "no PostgreSQL server under \(root) (install Debian's postgresql: `make test` does) and SWITCHBOARD_POSTGRES_BIN is not set")
    }

    /// A loopback port nothing listens on now.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw PostgresTestError("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw PostgresTestError("bind: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Removes cluster folders whose owning process is gone, stopping a server still
    /// running in one. Folders of live processes (parallel runs) are left alone.
    static func sweepStale() {
        let temporary = FileManager.default.temporaryDirectory.path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []
        for name in names where name.hasPrefix(prefix) {
            let folder = temporary + "/" + name
            let owner = (try? String(contentsOfFile: folder + "/owner", encoding: .utf8)).flatMap(ProcessIdentity.init)
            if let owner, owner.isAlive { continue }
            if owner == nil, let made = try? FileManager.default.attributesOfItem(atPath: folder)[.creationDate] as? Date,
                Date().timeIntervalSince(made) < 120
            {
                continue  // being set up right now by another process
            }
            if let server = postmasterPID(folder), kill(server, 0) == 0 {
                kill(server, SIGQUIT)  // immediate shutdown: nothing in it is worth keeping
                for _ in 0..<250 where kill(server, 0) == 0 { usleep(20_000) }
            }
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    /// The server's process id from its `postmaster.pid`, if it is a postgres process.
    static func postmasterPID(_ folder: String) -> pid_t? {
        guard let text = try? String(contentsOfFile: folder + "/data/postmaster.pid", encoding: .utf8),
            let line = text.split(separator: "\n").first, let pid = pid_t(line),
            let command = try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8),
            command.contains("postgres")
        else { return nil }
        return pid
    }
}
