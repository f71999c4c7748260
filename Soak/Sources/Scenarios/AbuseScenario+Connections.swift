import Foundation
import IMProtocol

/// The attacks that hold connections: slow headers, slow bodies, slow readers, idle ones.
extension AbuseScenario {
    /// Slowloris: headers one byte a second. The server's header timeout must close each
    /// connection that has not finished its headers within 10 s.
    func slowHeaders(_ context: Context, into report: inout Report) async throws {
        let swarm = ConnectionSwarm(
            count: slowConnections, sources: Loopback.clientAddresses(10), port: context.port,
            prefix: Array("GET /v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8),
            trickle: Array("X-Slow: ".utf8) + Array(repeating: UInt8(ascii: "a"), count: 200),
            duration: Self.headerTimeout + 6)
        let (outcome, measured) = try await context.probe.measure { await swarm.run() }
        report.figure("slowloris", outcome.summary)
        report.check(outcome.stillOpen == 0, "slowloris: \(outcome.stillOpen) connections still open after \(Int(swarm.duration)) s of one header byte a second")
        report.check((outcome.closedAfter.max() ?? 0) <= Self.headerTimeout + 3,
                     String(format: "slowloris: a connection was closed only after %.1f s (header timeout %.0f s)",
                            outcome.closedAfter.max() ?? 0, Self.headerTimeout))
        checkLatency("slowloris", measured, context, into: &report)
    }

    /// A body one byte a second, after complete headers announcing 10 kB (within what an
    /// anonymous request may send; a larger one is refused before it is read): each
    /// connection must be closed by the body deadline.
    func slowBodies(_ context: Context, into report: inout Report) async throws {
        let swarm = ConnectionSwarm(
            count: slowConnections / 2, sources: Loopback.clientAddresses(10, from: 20), port: context.port,
            prefix: Array("POST /v1/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n".utf8),
            trickle: Array(#"{"username":""#.utf8) + Array(repeating: UInt8(ascii: "a"), count: 200),
            duration: Self.bodyTimeout + 6)
        let before = try await metric("switchboard_http_body_timeouts_total", context) ?? 0
        let (outcome, measured) = try await context.probe.measure { await swarm.run() }
        let cut = (try await metric("switchboard_http_body_timeouts_total", context) ?? 0) - before
        report.figure("slow bodies", "\(outcome.summary); \(cut) cut by the body deadline")
        report.check(outcome.stillOpen == 0,
                     "slow bodies: \(outcome.stillOpen) connections sending a body one byte a second were still open after \(Int(swarm.duration)) s")
        report.check((outcome.closedAfter.max() ?? 0) <= Self.bodyTimeout + 3,
                     String(format: "slow bodies: a connection was closed only after %.1f s (body timeout %.0f s)",
                            outcome.closedAfter.max() ?? 0, Self.bodyTimeout))
        report.check(cut >= outcome.opened, "slow bodies: only \(cut) of \(outcome.opened) connections were cut by the body deadline")
        checkLatency("slow bodies", measured, context, into: &report)
    }

    /// Slow readers: requests for a large history whose answers are never read. The server
    /// must let each connection go by the send deadline (or earlier, by the idle timeout,
    /// which MHD also applies to a write that makes no progress). What the reader
    /// then sees of its socket is up to the kernels (the close waits behind the unsent
    /// answer), so the server's own count of open connections is what is checked.
    func slowReaders(_ context: Context, into report: inout Report) async throws {
        // A bot account fills a conversation quickly (its send budget is 100/s).
        let writer = try await context.server.createAccount("soak-writer", password: "soak writer password", bot: true)
        let text = String(repeating: "long message ", count: 300)
        for index in 0..<200 {
            let outcome = await writer.sendRetrying("\(index) \(text)", to: "user:soak-writer", clientMessageID: "long-\(index)")
            guard outcome.message != nil else { throw SoakFailure("filling the history: \(outcome.failures)") }
        }
        guard let token = writer.token else { throw SoakFailure("the writer has no token") }
        let request = RawSocket.request("GET", "/v1/conversations/user:soak-writer/messages?limit=200",
                                        headers: ["Authorization: Bearer \(token)"])
        let before = memory(context)
        let sources = Loopback.clientAddresses(10, from: 40)
        let swarm = ConnectionSwarm(count: min(150, slowConnections / 2), sources: sources,
                                    port: context.port, prefix: request, reads: false, duration: Self.sendTimeout + 6)
        // The send deadline runs from when an answer is ready, which under load is a while
        // after the request: 3 s of slack for that and the deadline sweep's tick.
        let allowed = Self.sendTimeout + 3
        let pid = context.server.process.pid
        let (outcome, measured) = try await context.probe.measure {
            let started = ContinuousClock.now
            async let held = swarm.run()
            try await Task.sleep(for: .seconds(2))
            let during = (memory(context), SocketTable.connections(of: pid, to: sources))
            // Until the server holds none of them, within the deadline and a little.
            var released: Double?
            while released == nil, (ContinuousClock.now - started).seconds < allowed + 2 {
                if SocketTable.connections(of: pid, to: sources) == 0 { released = (ContinuousClock.now - started).seconds }
                try await Task.sleep(for: .milliseconds(250))
            }
            return (await held, during, released)
        }
        let (held, during, released) = outcome
        report.figure("slow readers", "\(held.opened) opened, \(during.1) held by the server 2 s in, "
            + (released.map { String(format: "all let go %.1f s in", $0) } ?? "not all let go")
            + "; server memory \(before) before, \(during.0) with the answers unread, \(memory(context)) after; "
            + "seen closed by the readers: \(held.closedAfter.count)")
        report.check(during.1 > 0, "slow readers: the server held none of the readers' connections 2 s in (nothing measured)")
        report.check((released ?? .infinity) <= allowed,
                     "slow readers: the server still held connections whose answer was never read "
                     + String(format: "%.0f s after they asked (send timeout %.0f s, idle timeout %.0f s)", allowed, Self.sendTimeout, Self.idleTimeout))
        checkLatency("slow readers", measured, context, into: &report)
    }

    /// Thousands of idle connections: half never send a byte, half send one request and
    /// keep the connection. The header and idle timeouts must close them all.
    func idle(_ context: Context, into report: inout Report) async throws {
        let half = idleConnections / 2
        let silent = ConnectionSwarm(count: half, sources: Loopback.clientAddresses(10, from: 60), port: context.port,
                                     duration: Self.headerTimeout + 6)
        let keptAlive = ConnectionSwarm(count: idleConnections - half, sources: Loopback.clientAddresses(10, from: 80),
                                        port: context.port, prefix: RawSocket.request("GET", "/healthz"),
                                        duration: Self.headerTimeout + 6)
        let before = memory(context)
        let (outcome, measured) = try await context.probe.measure {
            async let quietOnes = silent.run()
            async let aliveOnes = keptAlive.run()
            try await Task.sleep(for: .seconds(3))
            let open = try? await metric("switchboard_http_open_connections", context)
            let during = memory(context)
            return (await quietOnes, await aliveOnes, open, during)
        }
        let (quietOnes, aliveOnes, open, during) = outcome
        report.figure("idle, silent", quietOnes.summary)
        report.figure("idle, kept alive", aliveOnes.summary)
        report.figure("idle connections", "\(open.map(String.init) ?? "?") open on the server at the peak; memory \(before) before, \(during) at the peak")
        for (name, swarm) in [("silent", quietOnes), ("kept alive", aliveOnes)] {
            report.check(swarm.failedToOpen == 0, "idle \(name): \(swarm.failedToOpen) connections refused below the connection limit")
            report.check(swarm.stillOpen == 0, "idle \(name): \(swarm.stillOpen) connections were never closed by the server")
        }
        report.check(aliveOnes.answers[200] == aliveOnes.opened, "idle kept alive: only \(aliveOnes.answers[200] ?? 0) of \(aliveOnes.opened) requests were answered 200")
        checkLatency("idle connections", measured, context, into: &report)
    }

    /// A counter or gauge of the server's `/metrics`.
    func metric(_ name: String, _ context: Context) async throws -> Int? {
        let text = String(decoding: try await context.server.client.send("GET", "/metrics").body, as: UTF8.self)
        let line = text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") }
    }
}
