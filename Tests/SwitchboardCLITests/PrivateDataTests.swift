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

    /// Everything `switchboard up` writes into its data folder as shipped (the database, its
    /// lock, the bots' journals, generated passwords and audit log) is the owner's alone:
    /// every folder 0700, every file 0600, walked after the bots have started and a message
    /// has gone through.
    @Test(.timeLimit(.minutes(3)))
    func everythingUpWritesInTheDataFolderIsPrivate() async throws {
        try await ShippedUp.run { up in
            try await up.botRunning("helpdesk")
            let (alice, _) = try await TestClient(baseURL: up.baseURL).register("alice")
            let sent = try await alice.send(
                "POST", "/v1/conversations/user:helpdesk/messages", json: SendMessageRequest(text: "/help"))
            #expect(sent.status == 201)
            try await eventually("the help desk's reply") {
                let page = try await alice.get("/v1/conversations/user:helpdesk/messages").decode(MessagePage.self)
                return page.messages.contains { $0.sender == "helpdesk" }
            }

            let data = up.sandbox.path("data")
            var seen: [String: Int] = [:]
            let walker = try #require(FileManager.default.enumerator(atPath: data))
            for case let relative as String in walker { seen[relative] = Self.mode("\(data)/\(relative)") }
            #expect(seen["switchboard.sqlite"] != nil)
            #expect(seen["bots"] != nil)
            #expect(seen.count > 4, "\(seen)")
            #expect(Self.mode(data) == 0o700)
            for (relative, mode) in seen.sorted(by: { $0.key < $1.key }) {
                var isFolder: ObjCBool = false
                _ = FileManager.default.fileExists(atPath: "\(data)/\(relative)", isDirectory: &isFolder)
                #expect(mode == (isFolder.boolValue ? 0o700 : 0o600), "\(relative) is \(String(mode, radix: 8))")
            }
            #expect(try await up.process.stop(SIGTERM) == 0, "\(up.process.errors)")
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
