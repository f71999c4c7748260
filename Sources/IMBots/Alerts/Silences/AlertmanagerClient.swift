import Foundation
import IMClient

/// Alertmanager's API v2 for silences, against the configured peers of one cluster.
///
/// Each call goes to the peers in order and the first success wins: both peers of an HA
/// pair share silences by gossip, so either can take a silence or list them. A peer that
/// cannot be reached, times out or answers 5xx is skipped; a 4xx is the cluster's
/// answer and is not retried elsewhere. This client is the one layer that retries
/// (across peers, once each); callers do not wrap it in more retries.
///
/// The peers come from the bot's configuration, never from a payload's `externalURL`,
/// so a forged notification cannot point silences elsewhere.
public struct AlertmanagerClient: Sendable {
    /// Base URLs, e.g. `http://127.0.0.1:9093`, without a trailing slash.
    public let peers: [String]
    /// The limit for one request to one peer.
    public var timeout: Duration
    private let transport: any HTTPTransport

    /// Creates a client; throws `notConfigured` when a peer is not an http(s) URL.
    public init(peers: [String], transport: any HTTPTransport, timeout: Duration = .seconds(5)) throws(AlertmanagerClientError) {
        guard !peers.isEmpty else { throw AlertmanagerClientError(.notConfigured, "no Alertmanager peer is configured") }
        var cleaned: [String] = []
        for peer in peers {
            let lower = peer.lowercased()
            guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
                throw AlertmanagerClientError(.notConfigured, "Alertmanager peer '\(peer)' must be an http(s) URL")
            }
            cleaned.append(peer.hasSuffix("/") ? String(peer.dropLast()) : peer)
        }
        self.peers = cleaned
        self.transport = transport
        self.timeout = timeout
    }

    /// Creates a silence; returns its id.
    public func createSilence(_ request: SilenceRequest) async throws(AlertmanagerClientError) -> String {
        let body: Data
        do { body = try JSONEncoder().encode(request) } catch {
            throw AlertmanagerClientError(.rejected, "the silence could not be encoded: \(error)")
        }
        let (peer, response) = try await call("POST", "/api/v2/silences", body: body)
        return try decode(SilenceCreated.self, response, from: peer).silenceID
    }

    /// The silences the cluster knows; only active ones unless `includeInactive`.
    public func silences(includeInactive: Bool = false) async throws(AlertmanagerClientError) -> [Silence] {
        let (peer, response) = try await call("GET", "/api/v2/silences", body: nil)
        let all = try decode([Silence].self, response, from: peer)
        return includeInactive ? all : all.filter(\.isActive)
    }

    /// Expires a silence now; `notFound` when no peer knows the id.
    public func expireSilence(id: String) async throws(AlertmanagerClientError) {
        guard !id.isEmpty, id.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || ByteText.isASCIIAlphanumeric($0) }) else {
            throw AlertmanagerClientError(.rejected, "'\(id.prefix(64))' is not a silence id")
        }
        _ = try await call("DELETE", "/api/v2/silence/\(id)", body: nil, notFoundFailsOver: true)
    }

    /// The alerts the cluster holds that `matchers` select (what a silence would mute).
    public func alerts(matching matchers: [SilenceMatcher]) async throws(AlertmanagerClientError) -> [ClusterAlert] {
        let filters = matchers.map { matcher in
            "filter=" + (matcher.description.addingPercentEncoding(withAllowedCharacters: Self.queryValue) ?? "")
        }
        let query = (["silenced=true", "inhibited=true", "active=true"] + filters).joined(separator: "&")
        let (peer, response) = try await call("GET", "/api/v2/alerts?" + query, body: nil)
        return try decode([ClusterAlert].self, response, from: peer)
    }

    /// What every peer holds that `matchers` select, each peer asked in turn: alerts are
    /// not gossiped (Prometheus sends each peer its own), so an alert one peer lost may
    /// still be on the other. The union of the answers, how many peers answered, and what
    /// the others said.
    public func alertsOnEveryPeer(matching matchers: [SilenceMatcher]) async
        -> (alerts: [ClusterAlert], answered: Int, failures: [String])
    {
        var alerts: [String: ClusterAlert] = [:]
        var answered = 0
        var failures: [String] = []
        for peer in peers {
            do {
                let one = try AlertmanagerClient(peers: [peer], transport: transport, timeout: timeout)
                for alert in try await one.alerts(matching: matchers) {
                    var merged = alerts[alert.fingerprint] ?? alert
                    merged.status.silencedBy = Array(Set(merged.status.silencedBy + alert.status.silencedBy)).sorted()
                    alerts[alert.fingerprint] = merged
                }
                answered += 1
            } catch {
                failures.append(error.message)
            }
        }
        return (alerts.values.sorted { $0.fingerprint < $1.fingerprint }, answered, failures)
    }

    private static let queryValue: CharacterSet = {
        var set = CharacterSet.alphanumerics
        set.insert(charactersIn: "-._~")
        return set
    }()

    /// Sends to each peer in turn until one answers 2xx, or one answers 4xx.
    private func call(_ method: String, _ path: String, body: Data?,
                      notFoundFailsOver: Bool = false) async throws(AlertmanagerClientError) -> (String, TransportResponse) {
        var failures: [String] = []
        var notFound = false
        for peer in peers {
            let request = TransportRequest(
                method: method, url: peer + path,
                headers: body == nil ? [("Accept", "application/json")]
                    : [("Accept", "application/json"), ("Content-Type", "application/json")],
                body: body, timeout: timeout, connectTimeout: min(timeout, .seconds(2)))
            let response: TransportResponse
            do {
                response = try await transport.send(request)
            } catch let error as TransportError {
                if error.code == .cancelled { throw AlertmanagerClientError(.unavailable, "cancelled") }
                failures.append("\(peer): \(error.message)")
                continue
            } catch {
                failures.append("\(peer): \(error)")
                continue
            }
            switch response.status {
            case 200..<300:
                return (peer, response)
            case 404 where notFoundFailsOver:
                notFound = true
                failures.append("\(peer): not found")
            case 400..<500:
                throw AlertmanagerClientError(
                    response.status == 404 ? .notFound : .rejected,
                    "Alertmanager at \(peer) refused \(method) \(path.prefix(40)): \(response.status) \(Self.summary(response.body))")
            default:
                failures.append("\(peer): \(response.status) \(Self.summary(response.body))")
            }
        }
        if notFound, failures.allSatisfy({ $0.hasSuffix(": not found") }) {
            throw AlertmanagerClientError(.notFound, "no Alertmanager peer knows that silence")
        }
        throw AlertmanagerClientError(.unavailable, "no Alertmanager peer answered: " + failures.joined(separator: "; "))
    }

    private func decode<T: Decodable>(_ type: T.Type, _ response: TransportResponse,
                                      from peer: String) throws(AlertmanagerClientError) -> T {
        do {
            return try JSONDecoder().decode(type, from: response.body)
        } catch {
            throw AlertmanagerClientError(.invalidResponse, "Alertmanager at \(peer) sent an unexpected body: \(Self.summary(response.body))")
        }
    }

    /// The first 200 characters of a body, on one line.
    private static func summary(_ body: Data) -> String {
        String(decoding: body.prefix(200), as: UTF8.self).singleLine
    }
}

/// An alert as Alertmanager's `GET /api/v2/alerts` reports it.
public struct ClusterAlert: Sendable, Hashable, Codable {
    /// `active`, `suppressed` or `unprocessed`.
    public struct Status: Sendable, Hashable, Codable {
        /// The state name.
        public var state: String
        /// Ids of the silences muting it.
        public var silencedBy: [String]
    }

    /// The alert's labels.
    public var labels: [String: String]
    /// Alertmanager's identity of the alert.
    public var fingerprint: String
    /// Whether it is muted.
    public var status: Status
}
