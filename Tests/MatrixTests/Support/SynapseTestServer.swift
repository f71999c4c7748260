import Foundation
import IMClient
import MatrixClient
import PostgresTestSupport
import SwitchboardCrypto
import Synchronization
import TestSupport

/// A Synapse homeserver for tests, from the Makefile's venv (`make matrix-venv`): a
/// throw-away folder, SQLite, loopback only, a free port. One per test process, shared
/// by every Matrix suite: started on first use, stopped when the process exits (and,
/// through a parent-death signal, when it is killed).
final class SynapseTestServer: Sendable {
    /// The package's root, from this file's place in it.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path
    /// The venv's Python: `SWITCHBOARD_SYNAPSE_PYTHON`, else `.venv-matrix/bin/python`.
    static var python: String {
        ProcessInfo.processInfo.environment["SWITCHBOARD_SYNAPSE_PYTHON"] ?? packageRoot + "/.venv-matrix/bin/python"
    }
    static let folderPrefix = "switchboard-synapse-"
    /// The transport of the tests' Matrix clients and of the set-up calls.
    static let transport = CurlTransport()

    /// E.g. `http://127.0.0.1:41234`.
    let baseURL: String
    /// The server part of every user id, e.g. `@alice:switchboard.test`.
    let serverName: String
    let folder: String
    let process: SynapseProcess
    /// How long the start took, from spawning Synapse to its first answer.
    let startDuration: Duration
    private let sharedSecret: String
    private let accounts = Atomic<Int>(0)

    private init(baseURL: String, serverName: String, folder: String, process: SynapseProcess, sharedSecret: String,
                 startDuration: Duration) {
        self.baseURL = baseURL
        self.serverName = serverName
        self.folder = folder
        self.process = process
        self.sharedSecret = sharedSecret
        self.startDuration = startDuration
    }

    /// The process's homeserver, started on first use; a failed start fails every caller.
    static func shared() async throws -> SynapseTestServer {
        try await sharedStart.value()
    }

    private static let sharedStart = StartOnce()

    /// A homeserver of its own (not the shared one), e.g. with low rate limits; stopped
    /// when the process exits.
    static func start(configure: @Sendable (inout SynapseConfig) -> Void = { _ in }) async throws -> SynapseTestServer {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw TestFailure("\(python) is missing: `make matrix-venv` (which `make test` runs) installs Synapse")
        }
        sweepStale()
        let folder = FileManager.default.temporaryDirectory.path + "/" + folderPrefix
            + "\(getpid())-\(UUID().uuidString.prefix(8).lowercased())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o700])
        try String(getpid()).write(toFile: folder + "/owner", atomically: true, encoding: .utf8)
        let secret = Digest.hex(SecureRandom.bytes(16))
        var lastLog = ""
        for _ in 0..<3 {
            let port = try LoopbackSocket().closedPort()
            var config = SynapseConfig(folder: folder, port: port, serverName: "switchboard.test", sharedSecret: secret)
            configure(&config)
            try config.write()
            let began = ContinuousClock.now
            let process = try SynapseProcess(python: python, folder: folder)
            let baseURL = "http://127.0.0.1:\(config.port)"
            if try await waitUntilAnswering(baseURL, process) {
                SynapseExit.register(process, folder: folder)
                return SynapseTestServer(baseURL: baseURL, serverName: config.serverName, folder: folder,
                                         process: process, sharedSecret: secret, startDuration: began.duration(to: .now))
            }
            lastLog = (try? String(contentsOfFile: folder + "/homeserver.log", encoding: .utf8)) ?? ""
            lastLog += (try? String(contentsOfFile: folder + "/output.log", encoding: .utf8)) ?? ""
            guard lastLog.contains("Address already in use") else { break }
        }
        try? FileManager.default.removeItem(atPath: folder)
        throw TestFailure("Synapse did not start; its log:\n\(lastLog.suffix(3000))")
    }

    /// Polls `/_matrix/client/versions` until it answers 200: true then, false when the
    /// process ended first. The guard is generous: Synapse makes its database on first start.
    private static func waitUntilAnswering(_ baseURL: String, _ process: SynapseProcess) async throws -> Bool {
        let transport = SynapseTestServer.transport
        let giveUp = ContinuousClock.now + .seconds(180)
        while ContinuousClock.now < giveUp {
            if process.hasExited { return false }
            let request = TransportRequest(url: baseURL + "/_matrix/client/versions", timeout: .seconds(5),
                                           connectTimeout: .seconds(2))
            if let response = try? await transport.send(request), response.status == 200 { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw HangError(what: "Synapse answering at \(baseURL)")
    }

    // MARK: Accounts

    /// A username no test has used yet in this process (`prefix` + a number).
    func newUsername(_ prefix: String) -> String {
        "\(prefix)\(accounts.add(1, ordering: .relaxed).newValue)"
    }

    /// The user id of `localpart` here.
    func userID(_ localpart: String) -> MatrixUserID { MatrixUserID("@\(localpart):\(serverName)")! }

    /// Registers an account with the shared secret (Synapse's admin registration:
    /// a nonce, then the account with an HMAC-SHA1 of nonce, name, password and role);
    /// returns its first login.
    func register(_ username: String, password: String, admin: Bool = false) async throws -> MatrixSession {
        let transport = SynapseTestServer.transport
        let url = baseURL + "/_synapse/admin/v1/register"
        let nonceAnswer = try await transport.send(TransportRequest(url: url))
        guard nonceAnswer.status == 200,
              let nonce = (try JSONSerialization.jsonObject(with: nonceAnswer.body) as? [String: Any])?["nonce"] as? String
        else { throw TestFailure("no registration nonce from \(url): HTTP \(nonceAnswer.status)") }
        var message = Data()
        for (index, part) in [nonce, username, password, admin ? "admin" : "notadmin"].enumerated() {
            if index > 0 { message.append(0) }
            message.append(contentsOf: Array(part.utf8))
        }
        let mac = Digest.hex(Digest.hmacSHA1(key: Array(sharedSecret.utf8), message: message))
        let body = try JSONSerialization.data(withJSONObject: [
            "nonce": nonce, "username": username, "password": password, "admin": admin, "mac": mac,
        ])
        let answer = try await transport.send(TransportRequest(
            method: "POST", url: url, headers: [("Content-Type", "application/json")], body: body))
        guard answer.status == 200, let fields = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any],
              let token = fields["access_token"] as? String, let user = fields["user_id"] as? String,
              let userID = MatrixUserID(user)
        else {
            throw TestFailure("registering \(username) failed: HTTP \(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
        }
        return MatrixSession(userID: userID, accessToken: token, deviceID: fields["device_id"] as? String)
    }

    /// A new account and a client logged in as it.
    func newClient(_ prefix: String, password: String = "correct horse battery") async throws -> MatrixClient {
        let session = try await register(newUsername(prefix), password: password)
        return MatrixClient(homeserver: baseURL, session: session, transport: SynapseTestServer.transport)
    }

    /// Removes folders of earlier runs whose process is gone (a killed run's).
    private static func sweepStale() {
        let temporary = FileManager.default.temporaryDirectory.path
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? [] where name.hasPrefix(folderPrefix) {
            let folder = temporary + "/" + name
            guard let text = try? String(contentsOfFile: folder + "/owner", encoding: .utf8), let owner = pid_t(text),
                  kill(owner, 0) != 0 else { continue }
            try? FileManager.default.removeItem(atPath: folder)
        }
    }
}

/// The shared homeserver, started by the first caller; the others wait for the same start.
private actor StartOnce {
    private var starting: Task<SynapseTestServer, any Error>?

    func value() async throws -> SynapseTestServer {
        if let starting { return try await starting.value }
        // Awaited by every caller; it ends by itself.
        let started = Task { try await SynapseTestServer.start() }
        starting = started
        return try await started.value
    }
}

extension LoopbackSocket {
    /// The port, once the socket is closed again: free for a server to bind right after.
    func closedPort() -> Int {
        close(descriptor)
        return port
    }
}
