import Foundation
import IMProtocol
import IMServer

/// `switchboard serve`: the IM server alone.
struct ServeCommand: Command {
    static let name = "serve"
    static let summary = "run the IM server (no bots)"
    static let help = """
        usage: switchboard serve [--config FILE] [--listen HOST:PORT] [--data DIR | --store URL] [--log-level LEVEL]
                                 [--log-file FILE]

        Runs the IM server until SIGINT or SIGTERM, then stops gracefully: parked polls are
        answered and requests in flight finish. SIGHUP reopens the log file (after log
        rotation moved it away).

        options:
          --config FILE      configuration file (default: config.yaml if present); its
                             server: section gives the defaults for the flags below
          --listen HOST:PORT address to listen on (default 127.0.0.1:8080)
          --data DIR         folder for the SQLite database (default ./data)
          --store URL        sqlite (the default: the database in --data), or a PostgreSQL
                             database: postgres://USER@HOST:PORT/DATABASE (the password from
                             PGPASSWORD or ~/.pgpass rather than the URL). Several server nodes
                             may share one PostgreSQL database (docs/operations.md)
          --log-level LEVEL  trace, debug (one line per request), info, notice, warning, error
          --log-file FILE    append log lines to FILE instead of standard error (default:
                             the config's log_file)

        exit codes: 0 stopped cleanly, 1 failure, 2 bad flag, unusable data folder or database, or
        busy port
        """
    static let options: Set<String> = ["config", "listen", "data", "store", "log-level", "log-file"]
    static let flags: Set<String> = []

    var configPath: String?
    var listen: ListenAddress?
    var data: String?
    var store: String?
    var logLevel: String?
    var logFile: String?

    init(arguments: Arguments) throws {
        configPath = arguments[option: "config"]
        if let text = arguments[option: "listen"] {
            guard let address = ListenAddress(text) else {
                throw UsageError(message: "--listen '\(text)' is not HOST:PORT (e.g. 127.0.0.1:8080)")
            }
            listen = address
        }
        data = arguments[option: "data"]
        store = arguments[option: "store"]
        if let store, StoreLocation(store) == nil {
            throw UsageError(message: "--store '\(ServerFileConfig.redacted(store))' is not sqlite or a postgres:// URL")
        }
        logLevel = arguments[option: "log-level"]
        logFile = arguments[option: "log-file"]
        guard arguments.positionals.isEmpty else {
            throw UsageError(message: "unexpected argument '\(arguments.positionals[0])'")
        }
    }

    func run() async throws -> Int32 {
        let (file, directory) = try ConfigFile.load(configPath)
        var section = file.server ?? ServerFileConfig()
        if let listen { section.listen = listen }
        if let data { section.data = data }
        if let store { section.store = store }
        let configuration = try ConfigFile.serverConfiguration(section)
        let log = try ProcessLog(config: file, directory: directory, level: try file.level(override: logLevel), override: logFile)
        defer { log.close() }
        await log.armed()
        return try await Deployment(file: file, directory: directory, server: configuration).run(log: log)
    }
}
