import Foundation
import IMBots
import IMServer
import Logging

/// `switchboard up`: the embedded server and the bots, in one process.
struct UpCommand: Command {
    static let name = "up"
    static let summary = "run the embedded server and the bots in bots/ (the demo)"
    static let help = """
        usage: switchboard up [--config FILE] [--log-level LEVEL]

        Starts the IM server of the config's server: section (default 127.0.0.1:8080, data in
        ./data, or the PostgreSQL database of server.store) and, once it listens, the bots of the bots folder connected to it over HTTP,
        as a separate deployment would be. Runs until SIGINT or SIGTERM, then stops the bots
        and the server gracefully. SIGHUP or a changed bot file reloads the bots.

        options:
          --config FILE      configuration file (default: config.yaml)
          --log-level LEVEL  trace, debug, info, notice, warning, error

        exit codes: 0 stopped cleanly, 1 failure, 2 bad configuration, bot files, busy port
        or unusable data folder
        """
    static let options: Set<String> = ["config", "log-level"]
    static let flags: Set<String> = []

    var configPath: String?
    var logLevel: String?

    init(arguments: Arguments) throws {
        configPath = arguments[option: "config"]
        logLevel = arguments[option: "log-level"]
        guard arguments.positionals.isEmpty else {
            throw UsageError(message: "unexpected argument '\(arguments.positionals[0])'")
        }
    }

    func run() async throws -> Int32 {
        let (file, directory) = try ConfigFile.load(configPath)
        let level = try file.level(override: logLevel)
        var section = file.server ?? ServerFileConfig()
        if section.data == nil { section.data = (directory as NSString).appendingPathComponent("data") }
        let serverConfiguration: ServerConfiguration
        do {
            serverConfiguration = try section.configuration()
        } catch let error as ServerFileConfig.Invalid {
            throw ConfigurationError(error.description)
        }
        let app: IMServerApp
        do {
            app = try await IMServerApp(configuration: serverConfiguration, logger: Logger(label: "server", level: level))
            try await app.start()
        } catch let error as ServerStartError {
            throw ConfigurationError(error.message)
        }
        let host = serverConfiguration.http.host
        let reachable = host == "0.0.0.0" || host == "::" ? "127.0.0.1" : host.contains(":") ? "[\(host)]" : host
        let url = file.runner?.server ?? "http://\(reachable):\(app.port)"
        do {
            let runner = try file.runnerConfiguration(directory: directory, serverURL: url)
            try await RunCommand.runBots(runner, logger: Logger(label: "runner", level: level))
        } catch {
            await app.shutdown()
            throw error
        }
        await app.shutdown()
        return ExitCode.ok
    }
}
