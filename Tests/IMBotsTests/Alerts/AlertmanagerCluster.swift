import Foundation
import IMClient
import IMProtocol
import Synchronization
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Real Alertmanagers (Debian's `prometheus-alertmanager`) clustered with each other on
/// loopback, for end-to-end tests of the alert bridge.
///
/// Each peer gets its own web and cluster port, a throw-away storage folder and a config
/// whose one webhook receiver points at the URL the test gives. ``start(peers:webhookURL:bearerToken:)``
/// returns once every peer answers `/-/ready` and reports, in `GET /api/v2/status`, a
/// settled cluster of all peers, polled under a generous guard (never a fixed sleep).
/// Stop it with ``stop()``; logs stay in ``directory`` for a failing test to read.
final class AlertmanagerCluster: Sendable {
    /// Where Debian installs it (`make test` installs the package).
    static let binary = "/usr/bin/prometheus-alertmanager"
    /// How long start-up and each awaited event may take before the test fails.
    static let guardTime: Duration = .seconds(90)

    /// One running Alertmanager.
    struct Peer: Sendable {
        let webPort: Int
        let clusterPort: Int
        let process: ChildProcess
        /// `http://127.0.0.1:<webPort>`.
        var url: String { "http://127.0.0.1:\(webPort)" }
    }

    let peers: [Peer]
    let directory: String
    let http: CurlTransport

    private init(peers: [Peer], directory: String, http: CurlTransport) {
        self.peers = peers
        self.directory = directory
        self.http = http
    }

    /// The config every peer runs: one route to one webhook receiver, with the shortest
    /// waits Alertmanager accepts that keep the test's counts exact. `repeat_interval`
    /// stays long on purpose: a repeat would add POSTs the tests count (repeats fold the
    /// same way as twins, which the dedupe unit tests cover).
    ///
    /// `receiver`, when given, is the YAML of the receiver's configs instead (indented
    /// under `- name: chat`, e.g. `telegram_configs:`), for the other senders.
    static func config(webhookURL: String, bearerToken: String, sendResolved: Bool = true, receiver: String? = nil) -> String {
        let configs = receiver ?? """
            webhook_configs:
              - url: '\(webhookURL)'
                send_resolved: \(sendResolved)
                http_config:
                  authorization: { type: Bearer, credentials: '\(bearerToken)' }
            """
        return """
            route:
              receiver: chat
              group_by: [alertname]
              group_wait: 1s
              group_interval: 1s
              repeat_interval: 1h
            receivers:
              - name: chat

            """ + configs.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }.joined(separator: "\n") + "\n"
    }

    /// A peer exited while the cluster started: most likely it lost one of its ports to
    /// another process between their reservation and its bind.
    struct PeerExited: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts `count` clustered peers and waits until the cluster has settled; tries
    /// again with new ports (three times in all) when a peer exits during start-up.
    ///
    /// `peerTimeout` is how long the second peer waits for the first one's delivery to
    /// be gossiped before it delivers itself (Alertmanager's HA dedupe).
    static func start(peers count: Int = 2, webhookURL: String = "", bearerToken: String = "",
                      peerTimeout: Duration = .seconds(2), sendResolved: Bool = true,
                      receiver: String? = nil) async throws -> AlertmanagerCluster {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw TestFailure("\(binary) is missing: `make test` installs prometheus-alertmanager")
        }
        var attempt = 1
        while true {
            do {
                return try await startOnce(peers: count, webhookURL: webhookURL, bearerToken: bearerToken,
                                           peerTimeout: peerTimeout, sendResolved: sendResolved, receiver: receiver)
            } catch is PeerExited where attempt < 3 {
                attempt += 1
            }
        }
    }

    private static func startOnce(peers count: Int, webhookURL: String, bearerToken: String,
                                  peerTimeout: Duration, sendResolved: Bool, receiver: String?) async throws -> AlertmanagerCluster {
        let directory = TestServer.temporaryDirectory()
        let configPath = directory + "/alertmanager.yml"
        try config(webhookURL: webhookURL, bearerToken: bearerToken, sendResolved: sendResolved, receiver: receiver)
            .write(toFile: configPath, atomically: true, encoding: .utf8)
        // Ports are reserved by binding them, then released just before the peers start;
        // a peer that loses the race exits, the readiness wait reports it and `start`
        // tries again.
        let web = try (0..<count).map { _ in try LoopbackSocket() }
        let gossip = try (0..<count).map { _ in try LoopbackSocket() }
        for socket in web + gossip { close(socket.descriptor) }
        var started: [Peer] = []
        do {
            for index in 0..<count {
                let storage = directory + "/peer\(index)"
                try FileManager.default.createDirectory(atPath: storage, withIntermediateDirectories: true)
                var arguments = [
                    "--config.file=\(configPath)",
                    "--storage.path=\(storage)",
                    "--web.listen-address=127.0.0.1:\(web[index].port)",
                    "--cluster.listen-address=127.0.0.1:\(gossip[index].port)",
                    "--cluster.advertise-address=127.0.0.1:\(gossip[index].port)",
                    "--cluster.gossip-interval=50ms",
                    "--cluster.pushpull-interval=1s",
                    "--cluster.peer-timeout=\(Int(peerTimeout.components.seconds))s",
                    "--log.level=debug",
                ]
                for other in 0..<count where other != index {
                    arguments.append("--cluster.peer=127.0.0.1:\(gossip[other].port)")
                }
                let process = try ChildProcess(binary, arguments: arguments, log: storage + ".log")
                started.append(Peer(webPort: web[index].port, clusterPort: gossip[index].port, process: process))
            }
        } catch {
            for peer in started { await peer.process.stop() }
            throw error
        }
        let cluster = AlertmanagerCluster(peers: started, directory: directory, http: CurlTransport())
        do {
            try await cluster.waitUntilSettled()
        } catch {
            await cluster.stop()
            throw error
        }
        return cluster
    }

    /// Polls each peer until it is ready and sees a settled cluster of every peer.
    private func waitUntilSettled() async throws {
        try await poll("every peer ready in a settled cluster of \(peers.count)") {
            for peer in self.peers {
                guard peer.process.isRunning else {
                    throw PeerExited(description: "Alertmanager on \(peer.url) exited: \(peer.process.logTail())")
                }
                guard let ready = try? await self.request("GET", peer.url + "/-/ready"), ready.status == 200,
                      let status = try? await self.request("GET", peer.url + "/api/v2/status"), status.status == 200,
                      let object = try? JSONSerialization.jsonObject(with: status.body) as? [String: Any],
                      let cluster = object["cluster"] as? [String: Any],
                      cluster["status"] as? String == "ready",
                      (cluster["peers"] as? [Any])?.count == self.peers.count
                else { return false }
            }
            return true
        }
    }

    /// Alerts of one group (`alertname`), one per instance, for `POST /api/v2/alerts`;
    /// `resolved` ends them all at one moment a few seconds ahead.
    ///
    /// Firing alerts start a minute ahead, so that the group waits its `group_wait` for
    /// all of them: Alertmanager flushes a group at once when an alert arrives whose
    /// `startsAt` is more than `group_wait` old, and a flush between the first and the
    /// second alert of one POST (a loaded machine) sends a notification with the first
    /// alone, then one with both: two different notifications where the tests count
    /// twins. (That is what made `haPairDedupe` admit two under full-suite load; the
    /// bridge's dedupe was right to. Against Debian's 0.25.0 at a load average of 16, 1 of
    /// 301 POSTs of two alerts started 60 s before was flushed split, none of 601 with the
    /// start ahead.) For the same reason every alert of a resolve gets
    /// the same `endsAt`, ahead of now: until then every flush sees them all firing,
    /// after it all resolved, never some of each.
    static func alerts(_ instances: [String], alertname: String, severity: String = "critical",
                       resolved: Bool = false) -> [[String: Any]] {
        let now = Timestamp.now()
        return instances.map { instance in
            var alert: [String: Any] = [
                "labels": ["alertname": alertname, "instance": instance, "severity": severity, "job": "node"],
                "annotations": ["summary": "disk full on \(instance)"],
                "generatorURL": "http://prometheus.example/graph",
            ]
            if resolved {
                alert["endsAt"] = now.adding(seconds: 3).rfc3339
            } else {
                alert["startsAt"] = now.adding(seconds: 60).rfc3339
            }
            return alert
        }
    }

    /// Posts alerts to one peer's `POST /api/v2/alerts`.
    func post(alerts: [[String: Any]], to peer: Peer) async throws {
        let body = try JSONSerialization.data(withJSONObject: alerts)
        let response = try await request("POST", peer.url + "/api/v2/alerts", body: body)
        guard response.status == 200 else {
            throw TestFailure("POST /api/v2/alerts on \(peer.url): \(response.status) \(String(decoding: response.body, as: UTF8.self))")
        }
    }

    /// Posts the same alerts to every peer, as Prometheus does for an HA pair.
    func postToAll(alerts: [[String: Any]]) async throws {
        for peer in peers { try await post(alerts: alerts, to: peer) }
    }

    /// The alerts of `alertname` a peer holds now (`GET /api/v2/alerts`: resolved ones are
    /// not listed).
    func alerts(named alertname: String, on peer: Peer) async throws -> Int {
        let query = "filter=" + "alertname=\"\(alertname)\"".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let answer = try await request("GET", peer.url + "/api/v2/alerts?" + query)
        return (try JSONSerialization.jsonObject(with: answer.body) as? [Any])?.count ?? 0
    }

    /// One request to a peer.
    func request(_ method: String, _ url: String, body: Data? = nil) async throws -> TransportResponse {
        try await http.send(TransportRequest(method: method, url: url,
                                             headers: body == nil ? [] : [("Content-Type", "application/json")],
                                             body: body, timeout: .seconds(10)))
    }

    /// Stops every peer (SIGTERM, then SIGKILL past a grace) and removes the storage,
    /// keeping the logs.
    func stop() async {
        for peer in peers { await peer.process.stop() }
        for index in peers.indices {
            try? FileManager.default.removeItem(atPath: directory + "/peer\(index)")
        }
        await http.shutdown()
    }

    /// Every peer's log tail, for a failing test's message.
    var logs: String {
        peers.map { "\($0.url):\n\($0.process.logTail())" }.joined(separator: "\n")
    }
}

/// Polls `condition` until it is true, failing after ``AlertmanagerCluster/guardTime``.
func poll(_ what: String, guardTime: Duration = AlertmanagerCluster.guardTime,
          _ condition: @Sendable () async throws -> Bool) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + guardTime
    while true {
        if try await condition() { return }
        guard clock.now < deadline else { throw TestFailure("gave up waiting for \(what) after \(guardTime)") }
        try await clock.sleep(for: .milliseconds(50))
    }
}
