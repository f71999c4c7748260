import Foundation
import IMClient
import IMProtocol

/// The server and account options shared by the client commands, and logging in with
/// them: a login saved by an earlier command is reused; otherwise the password comes
/// from `SWITCHBOARD_PASSWORD` or a prompt, and the new login is saved (mode 0600).
struct ClientLogin {
    static let options: Set<String> = ["server", "user"]
    static let help = """
          --server URL       the server (default $SWITCHBOARD_SERVER, else http://127.0.0.1:8080)
          --user NAME        the account to act as (default: the last one used here)
        The password comes from SWITCHBOARD_PASSWORD, else it is asked for. Logins are kept
        under $SWITCHBOARD_HOME (default ~/.local/share/switchboard) and reused.
        """

    var server: String
    var username: String

    init(arguments: Arguments, store: ProfileStore = CommandContext.current.profileStore) throws {
        server = arguments[option: "server"]
            ?? CommandContext.current.environment["SWITCHBOARD_SERVER"] ?? "http://127.0.0.1:8080"
        while server.hasSuffix("/") { server.removeLast() }
        guard server.hasPrefix("http://") || server.hasPrefix("https://") else {
            throw UsageError(message: "--server '\(server)' is not an http(s) URL")
        }
        guard let name = arguments[option: "user"] ?? store.lastUsername else {
            throw UsageError(message: "say who you are with --user NAME")
        }
        username = name.lowercased()
    }

    /// Whether a saved login still works: the account, or why not.
    private static func check(_ client: IMClient) async -> Result<User, IMClientError> {
        do {
            return .success(try await client.me())
        } catch {
            return .failure(error)
        }
    }

    /// A client logged in as `username`.
    func connect(store: ProfileStore = CommandContext.current.profileStore) async throws -> IMClient {
        let context = CommandContext.current
        if let saved = store.login(of: username), saved.serverURL == server {
            let client = IMClient(serverURL: server, transport: context.transport, token: saved.token,
                                  device: saved.device, configuration: context.client)
            switch await Self.check(client) {
            case .success(let user):
                client.use(token: saved.token, user: user)
                return client
            case .failure(let error) where error.apiCode == .unauthorized:
                try? store.removeLogin(of: username)
            case .failure(let error):
                throw error
            }
        }
        let device = "cli@\(ProcessInfo.processInfo.hostName)"
        let client = IMClient(serverURL: server, transport: context.transport, device: device,
                              configuration: context.client)
        // Ask for a password only when there is a server to give it to.
        try await client.checkHealth()
        let password = try Secrets.password(variable: "SWITCHBOARD_PASSWORD", prompt: "password for \(username): ")
        let auth = try await client.login(username: username, password: password, device: device)
        try? store.saveLogin(
            SavedLogin(username: username, serverURL: server, token: auth.token, device: device, savedAt: .now()))
        try? store.setLastUsername(username)
        try? store.saveProfile(auth.user)
        return client
    }
}
