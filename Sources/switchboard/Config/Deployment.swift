#if canImport(Glibc)
import Glibc
#endif
import Foundation
import IMBots
import IMServer
import Lifecycle
import Logging

/// What one process runs: the IM server (`serve`), the bot runner (`run`), or both
/// (`up`). The three commands only say which parts they want; the parts are made,
/// started and run here, each as the `Service` it is, under one `ServiceGroup`, so the
/// commands cannot drift apart: whatever a part does while it runs (the server's
/// periodic work, which answers idle polls when their timeout is up, and its cluster
/// links; the runner's reloads) it does under every command.
struct Deployment {
    /// The runner's part: which bots, and which server they talk to.
    struct RunnerPart {
        /// The IM server's URL (`--server`), overriding `runner.server`; nil for the
        /// config's, or, with an embedded server, that server.
        var serverURL: String?
        var strict: Bool
    }

    let file: ConfigFile
    /// The folder of the config file, where relative paths start.
    let directory: String
    /// The embedded server's configuration; nil for none.
    var server: ServerConfiguration?
    var runner: RunnerPart?

    /// Starts the parts (the server binds first, so that a busy port is a configuration
    /// error and the runner knows the port), runs them until SIGINT or SIGTERM, then stops
    /// them last first: the runner drains its outboxes while the server still answers.
    /// Returns the exit status: 0, or 2 when bot files still had problems at the stop.
    func run(log: ProcessLog) async throws -> Int32 {
        var services: [any Service] = []
        var app: IMServerApp?
        if let server {
            let embedded: IMServerApp
            do {
                embedded = try await IMServerApp(configuration: server, logger: log.logger("server"))
                try await embedded.start()
            } catch let error as ServerStartError {
                throw ConfigurationError(error.message)
            }
            app = embedded
            services.append(embedded)
        }
        var botRunner: BotRunner?
        if let runner {
            do {
                let made = try await makeRunner(runner, embedded: app, logger: log.logger("runner"))
                botRunner = made
                services.append(made)
            } catch {
                await app?.shutdown()
                throw error
            }
        }
        let logger = log.logger(botRunner == nil ? "server" : "runner")
        let hangup = botRunner.map { runner in
            SignalSource(SIGHUP) {
                logger.info("SIGHUP: reopening the audit log and reloading the bots")
                runner.reopenAuditLog()
                runner.requestReload()
            }
        }
        defer { hangup?.cancel() }
        await hangup?.armed()
        do {
            try await ServiceGroup(services: services, signals: [SIGINT, SIGTERM], logger: logger).run()
        } catch let error as RunnerError {
            throw ConfigurationError(error.description)
        }
        return botRunner.map(Self.exitStatus(after:)) ?? ExitCode.ok
    }

    /// The runner, talking to `embedded` (through its process-local administration
    /// credential, unless `runner.admin_token` is set) when there is one and
    /// `runner.server` names no other server.
    private func makeRunner(_ part: RunnerPart, embedded: IMServerApp?, logger: Logger) async throws -> BotRunner {
        var url = part.serverURL
        var localAdministration: String?
        if let embedded, url == nil, file.runner?.server == nil {
            let host = embedded.configuration.http.host
            let reachable = host == "0.0.0.0" || host == "::" ? "127.0.0.1" : host.contains(":") ? "[\(host)]" : host
            url = "http://\(reachable):\(embedded.port)"
            // It opens `/v1/admin` only and never leaves this process, so `register: true`
            // needs nothing set.
            localAdministration = try await embedded.localAdministratorToken()
        }
        var configuration = try file.runnerConfiguration(
            directory: directory, serverURL: url, localAdministration: localAdministration)
        configuration.strict = part.strict
        do {
            return try BotRunner(configuration: configuration, logger: logger)
        } catch let error as RunnerError {
            throw ConfigurationError(error.description)
        }
    }

    /// 0, or 2 when bot files still had problems at the stop (their bots ran on old
    /// rules, or not at all), each named on standard error.
    static func exitStatus(after runner: BotRunner) -> Int32 {
        let problems = runner.health.problems
        guard !problems.isEmpty else { return ExitCode.ok }
        for problem in problems {
            let what = problem.state == .oldRules ? "ran on old rules" : "did not run"
            printError("\(problem.file): bot \(problem.bot) \(what): \(problem.errors.first ?? "")")
        }
        return ExitCode.usage
    }
}
