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
        var configuration = RunnerConfiguration(
            serverURL: server, botsDirectory: resolve(section.bots ?? "bots"),
            stateDirectory: resolve(section.state ?? "data/bots"),
            listen: section.listen ?? ListenAddress(host: "127.0.0.1", port: 8090),
            environment: CommandContext.current.environment, adminToken: adminToken,
            metricsToken: section.metricsToken, httpAllow: allow)
        configuration.httpProxy = section.http?.proxy.flatMap { $0.isEmpty ? nil : $0 }
        configuration.journal = try Self.journalPlacement(section)
        return configuration
    }

    /// `runner.journal`, `runner.id` and `runner.lease`, checked.
    static func journalPlacement(_ section: RunnerFileConfig) throws -> JournalPlacement {
        switch section.journal ?? "folder" {
        case "folder":
            guard section.lease == nil else {
                throw ConfigurationError("runner.lease applies to runner.journal: server only")
            }
            return .folder
        case "server":
            guard let id = section.id, !id.isEmpty else {
                throw ConfigurationError(
                    "runner.journal: server needs runner.id: a name for this runner, unique among the runners "
                        + "sharing these bots (e.g. the host name)")
            }
            guard id.count <= 64, id.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x2F }) else {
                throw ConfigurationError("runner.id '\(id)' must be 1 to 64 printable characters without spaces or '/'")
            }
            let ttl = section.lease?.ttl ?? 15
            let retry = section.lease?.retry ?? 5
            guard ttl.isFinite, (1...600).contains(ttl) else {
                throw ConfigurationError("runner.lease.ttl must be 1 to 600 seconds (it is \(ttl))")
            }
            guard retry.isFinite, retry >= 0.1, retry <= ttl else {
                throw ConfigurationError("runner.lease.retry must be 0.1 seconds to runner.lease.ttl (it is \(retry))")
            }
            return .server(LeaseSettings(runnerID: id, ttl: .milliseconds(Int64(ttl * 1000)),
                                         retry: .milliseconds(Int64(retry * 1000))))
        case let other:
            throw ConfigurationError("runner.journal must be 'folder' or 'server', not '\(other)'")
        }
    }
}
