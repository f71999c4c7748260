import Foundation

/// `switchboard run`: the bot runner against a server elsewhere.
struct RunCommand: Command {
    static let name = "run"
    static let summary = "run the bots against a server (no embedded server)"
    static let help = """
        usage: switchboard run [--config FILE] [--server URL] [--log-level LEVEL] [--strict]

        Runs every bot in the config's bots folder (runner.bots, default ./bots) against the
        server at runner.server (or --server), until SIGINT or SIGTERM, then stops gracefully:
        the bots stop taking events, send what is queued (up to 10 s) and write their state.
        Bot files are checked and their examples run first: a file with a problem is
        logged and its bot left out, the others start (with --strict, any problem stops
        the start, exit 2; so does a folder where no bot can start). While running, a
        changed file (or SIGHUP) reloads the bots: new rules are used only if they pass
        check and their examples; otherwise the old rules keep running and the errors are
        logged. SIGHUP also reopens the log file and STATE/audit.log (log rotation:
        rename, then signal). The runner serves /metrics, /healthz and the bots' webhooks (webhooks: in
        a bot file, docs/alerts.md) on runner.listen (127.0.0.1:8090): /healthz answers
        "degraded" and names the bots on old rules (or not running) and why, as long as a
        file has problems; 'switchboard check' on the folder says the same.

        Bots with account.register: true get their accounts created with runner.admin_token
        (an administrator's token); without it the accounts must exist (switchboard user add
        --bot NAME). A bot without a password gets one generated at its first start, kept in
        its state folder (mode 0600).

        With runner.journal: server (and a runner.id of its own) several runners share the
        bots: each bot runs in the one runner that holds its lease on the server, its journal
        is kept there, and a dead runner's bots start in another within runner.lease.ttl plus
        runner.lease.retry seconds (docs/operations.md, "Several runners"). Such bots need
        account.password set. /healthz then also says, per bot, whether this runner holds it
        (and its fence) or which other runner does.

        A bot file with platform: {matrix: …} runs on its Matrix homeserver instead of
        runner.server (unencrypted rooms only; docs/matrix.md), its journal in the state
        folder: with runner.journal: server it is left out with an error. What Matrix
        lacks, the runner does there: notices are m.notice messages in the bot's direct
        chat with the member, slow mode is enforced by redacting, restricted newcomers
        are muted by power level until verified.

        options:
          --config FILE      configuration file (default: config.yaml)
          --server URL       the IM server, overriding runner.server
          --log-level LEVEL  trace, debug, info, notice, warning, error
          --strict           refuse to start when any bot file has a problem (for CI)

        exit codes: 0 stopped cleanly, 1 failure, 2 bad configuration or bot files (also at a
        stop when a bot file still had problems)
        """
    static let options: Set<String> = ["config", "server", "log-level"]
    static let flags: Set<String> = ["strict"]
    static let watchesShutdownSignals = true

    var configPath: String?
    var server: String?
    var logLevel: String?
    var strict: Bool

    init(arguments: Arguments) throws {
        configPath = arguments[option: "config"]
        server = arguments[option: "server"]
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
        let deployment = Deployment(
            file: file, directory: directory, runner: Deployment.RunnerPart(serverURL: server, strict: strict))
        return try await deployment.run(log: log)
    }
}
