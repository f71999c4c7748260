import Foundation
import IMBots
import IMProtocol

extension ConfigFile {
    /// The runner's configuration from the `runner:` section; relative folders are taken
    /// from the config file's folder. `localAdministration` is the embedded server's
    /// administration credential under `switchboard up`, used unless `runner.admin_token`
    /// is set.
    func runnerConfiguration(directory: String, serverURL: String?, localAdministration: String? = nil) throws
        -> RunnerConfiguration
    {
        let section = runner ?? RunnerFileConfig()
        guard let server = serverURL ?? section.server else {
            throw ConfigurationError("no server for the bots: set runner.server in the config file or pass --server URL")
        }
        guard server.hasPrefix("http://") || server.hasPrefix("https://") else {
            throw ConfigurationError("runner.server '\(server)' is not an http(s) URL")
        }
        func resolve(_ path: String) -> String {
            path.hasPrefix("/") ? path : (directory as NSString).appendingPathComponent(path)
        }
        let allow: HTTPAllowList
        do {
            allow = try HTTPAllowList(section.http?.allow ?? [])
        } catch {
            throw ConfigurationError(error.description)
        }
        // `admin_token: ${VAR:-}` with VAR unset is empty: that counts as not set.
        let adminToken = section.adminToken.flatMap { $0.isEmpty ? nil : $0 } ?? localAdministration
        return RunnerConfiguration(
            serverURL: server, botsDirectory: resolve(section.bots ?? "bots"),
            stateDirectory: resolve(section.state ?? "data/bots"),
            listen: section.listen ?? ListenAddress(host: "127.0.0.1", port: 8090),
            environment: CommandContext.current.environment, adminToken: adminToken,
            metricsToken: section.metricsToken, httpAllow: allow)
    }
}
