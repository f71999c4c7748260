import Foundation
import IMServer

/// `switchboard up`: the embedded server and the bots, in one process.
struct UpCommand: Command {
    static let name = "up"
    static let summary = "run the embedded server and the bots in bots/ (the demo)"
    static let help = """
        usage: switchboard up [--config FILE] [--log-level LEVEL] [--strict]

        Starts the IM server of the config's server: section (default 127.0.0.1:8080, data in
        ./data, or the PostgreSQL database of server.store) and, once it listens, the bots of the bots folder connected to it over HTTP,
        as a separate deployment would be. Runs until SIGINT or SIGTERM, then stops the bots
        first (they send what is queued while the server still answers) and the server
        after them. A bot file with a problem is logged and its bot left out (--strict:
        the start fails), as with 'switchboard run'. SIGHUP or a changed bot file reloads
        the bots; SIGHUP also reopens the log file and the runner's audit.log. Bots with register: true get their accounts from the embedded server
        (through its process-local administration credential): nothing needs to be set.

        options:
          --config FILE      configuration file (default: config.yaml)
          --log-level LEVEL  trace, debug, info, notice, warning, error
          --strict           refuse to start when any bot file has a problem

        exit codes: 0 stopped cleanly, 1 failure, 2 bad configuration, bot files (also at a
        stop when a bot file still had problems), busy port or unusable data folder
        """
    static let options: Set<String> = ["config", "log-level"]
    static let flags: Set<String> = ["strict"]
    static let watchesShutdownSignals = true

    var configPath: String?
    var logLevel: String?
    var strict: Bool

    init(arguments: Arguments) throws {
        configPath = arguments[option: "config"]
        logLevel = arguments[option: "log-level"]
        strict = arguments.has("strict")
        guard arguments.positionals.isEmpty else {
            throw UsageError(message: "unexpected argument '\(arguments.positionals[0])'")
        }
    }

    func run() async throws -> Int32 {
        let (file, directory) = try ConfigFile.load(configPath)
        let log = try ProcessLog(config: file, directory: directory, level: try file.level(override: logLevel), override: nil)
        defer { log.close() }
        await log.armed()
        var section = file.server ?? ServerFileConfig()
        if section.data == nil { section.data = (directory as NSString).appendingPathComponent("data") }
        let deployment = Deployment(
            file: file, directory: directory, server: try ConfigFile.serverConfiguration(section),
            runner: Deployment.RunnerPart(serverURL: nil, strict: strict))
        return try await deployment.run(log: log)
    }
}
