import Foundation
import IMClient
import IMProtocol
#if canImport(Glibc)
import Glibc
#endif

/// Abuse: slow headers, slow bodies, slow readers, thousands of idle connections, oversized
/// headers and bodies, parallel password guessing and a flood of direct messages to a bot
/// from many accounts, one after the other against one server, while a well-behaved
/// client measures how fast the server answers it.
///
/// Passes when every documented limit holds (the header, body, send and idle timeouts,
/// body and header sizes, the login lock-outs, the send budgets), every flood message the
/// server accepted reached the bot, and the well-behaved client's reads stay within ten
/// times their quiet 99th percentile (at least 250 ms) with no error. Many-connection
/// clients come from 127.0.0.2 and up, so a per-address connection limit does not stop
/// the test itself.
struct AbuseScenario: Scenario {
    static let name = "abuse"
    static let summary = "slowloris, slow bodies and readers, idle connections, oversized requests, password guessing, a DM flood"

    let slowConnections: Int
    let idleConnections: Int
    let floodAccounts: Int
    let floodMessages: Int
    let binary: String
    let work: String
    let store: any SoakStore

    init(options: Options) throws {
        slowConnections = try options.int("slow", full: 1000, quick: 300)
        idleConnections = try options.int("idle", full: 5000, quick: 2000)
        floodAccounts = try options.int("accounts", full: 1000, quick: 300)
        floodMessages = try options.int("flood-messages", full: 40, quick: 40)
        binary = options.binary
        work = try options.workFolder()
        store = try SoakStores.make(options.string("store", default: "sqlite"), work: work)
    }

    /// The server's settings that the attacks measure against: the shipped header timeout,
    /// and shorter idle, body and send deadlines than shipped so each attack is brief.
    static let idleTimeout = 5.0
    static let headerTimeout = 10.0
    static let bodyTimeout = 10.0
    static let sendTimeout = 10.0

    /// What every attack needs: the server, a well-behaved probe and its quiet latency.
    struct Context: Sendable {
        let server: ServerUnderTest
        let probe: Probe
        let quiet: Probe.Measurements
        var port: Int { server.port }
    }

    func run(_ report: inout Report) async throws {
        Self.raiseDescriptorLimit()
        let transport = CurlTransport()
        let server = try await ServerUnderTest(
            binary: binary, store: store, work: work, transport: transport,
            settings: ["durability: normal", "idle_timeout: \(Int(Self.idleTimeout))s", "body_timeout: \(Int(Self.bodyTimeout))s",
                       "send_timeout: \(Int(Self.sendTimeout))s"])
        let probeClient = try await server.client.register("soak-probe", password: "soak probe password")
        let probe = Probe(client: probeClient)
        let quiet = try await probe.measure(for: .seconds(5))
        report.figure("quiet probe", "reads \(quiet.reads); sends \(quiet.sends)")
        let context = Context(server: server, probe: probe, quiet: quiet)

        try await slowHeaders(context, into: &report)
        try await slowBodies(context, into: &report)
        try await slowReaders(context, into: &report)
        try await idle(context, into: &report)
        try await oversized(context, into: &report)
        try await passwordGuessing(context, into: &report)
        try await directMessageFlood(context, into: &report)

        report.check(server.process.isRunning, "the server exited (\(server.process.exitStatus ?? -1)); see \(server.logPath)")
        await server.stop()
        await transport.shutdown()
    }

    /// The probe's reads while an attack ran, against its quiet ones.
    func checkLatency(_ attack: String, _ measured: Probe.Measurements, _ context: Context, into report: inout Report) {
        let allowed = max(context.quiet.reads.percentile(0.99) * 10, 250)
        report.figure("\(attack): probe", "reads \(measured.reads); sends \(measured.sends)")
        report.check(measured.reads.errors == 0, "\(attack): \(measured.reads.errors) of the probe's reads failed")
        report.check(measured.reads.percentile(0.99) <= allowed,
                     String(format: "\(attack): the probe's reads took %.0f ms at the 99th percentile (allowed %.0f ms)",
                            measured.reads.percentile(0.99), allowed))
    }

    /// The server's resident memory now, for a figure.
    func memory(_ context: Context) -> String {
        context.server.process.residentKiB.map { "\($0 / 1024) MiB" } ?? "?"
    }

    /// The soft limit on open files raised to the hard one: this process holds thousands of
    /// connections, and the server it starts inherits the limit.
    static func raiseDescriptorLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
