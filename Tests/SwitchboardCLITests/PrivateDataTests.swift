#if canImport(Glibc)
import Glibc
#endif
import Foundation
import IMProtocol
import TestSupport
import Testing

/// The database holds password hashes and every message: tried from outside with the
/// `switchboard` executable, a data folder that already exists open to others (packaging,
/// `mkdir -p`, systemd's `StateDirectory=`) is made the owner's alone at start, and the
/// database, its WAL and shared memory, and a backup are 0600.
@Suite("private data files")
struct PrivateDataTests {
    static func mode(_ path: String) -> Int {
        var status = stat()
        guard stat(path, &status) == 0 else { return -1 }
        return Int(status.st_mode & 0o777)
    }

    @Test(.timeLimit(.minutes(3)))
    func aDataFolderOpenToOthersIsNarrowedAndTheDatabaseFilesArePrivate() async throws {
        let binary = try #require(switchboardExecutable, "build the switchboard executable first (swift build)")
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let data = sandbox.path("data")
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        #expect(chmod(data, 0o755) == 0)
        // A database made before, open to everyone, with its WAL.
        for file in ["switchboard.sqlite", "switchboard.sqlite-wal"] {
            #expect(FileManager.default.createFile(atPath: "\(data)/\(file)", contents: nil, attributes: [.posixPermissions: 0o644]))
        }
        let process = try SpawnedProcess(binary, ["serve", "--listen", "127.0.0.1:0", "--data", data])
        try await process.whileRunning {
            let url = try await process.serverURL()
            #expect(process.errors.contains("the data folder \(data) was open to other users (mode 755); it is 0700 now"))
            _ = try await TestClient(baseURL: url).register("alice")

            #expect(Self.mode(data) == 0o700)
            for file in ["switchboard.sqlite", "switchboard.sqlite-wal", "switchboard.sqlite-shm"] {
                #expect(Self.mode("\(data)/\(file)") == 0o600, "\(file)")
            }
            let backup = sandbox.path("backups/copy.sqlite")
            try FileManager.default.createDirectory(atPath: sandbox.path("backups"), withIntermediateDirectories: true)
            #expect(await sandbox.run(["backup", "--data", data, "--to", backup]).status == 0)
            #expect(Self.mode(backup) == 0o600)
            #expect(try await process.stop(SIGTERM) == 0, "\(process.errors)")
        }
    }

    /// `user passwd --data` on the folder of a running server is refused, pointing to the
    /// API: the server would go on trusting the account's cached logins. Once the server
    /// has stopped it works, and the logins have ended.
    @Test(.timeLimit(.minutes(3)))
    func passwdOnTheFolderOfARunningServerIsRefused() async throws {
        let binary = try #require(switchboardExecutable, "build the switchboard executable first (swift build)")
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let data = sandbox.path("data")
        let process = try SpawnedProcess(binary, ["serve", "--listen", "127.0.0.1:0", "--data", data])
        try await process.whileRunning {
            let url = try await process.serverURL()
            let (alice, _) = try await TestClient(baseURL: url).register("alice")
            let environment = ["SWITCHBOARD_NEW_PASSWORD": "a brand new password"]

            let refused = await sandbox.run(["user", "passwd", "alice", "--data", data], environment: environment)
            #expect(refused.status == 1)
            #expect(refused.errors.contains("a switchboard server is running on the data folder \(data) (pid \(process.pid))"))
            #expect(refused.errors.contains("switchboard user passwd NAME --server URL --user ADMIN"))
            #expect(try await alice.get("/v1/me").status == 200)
            _ = try await TestClient(baseURL: url).login("alice")

            #expect(try await process.stop(SIGTERM) == 0, "\(process.errors)")
            let changed = await sandbox.run(["user", "passwd", "alice", "--data", data], environment: environment)
            #expect(changed.status == 0, "\(changed.errors)")
            #expect(changed.outputLines == ["password of alice changed; its logins have ended"])
        }
    }
}
