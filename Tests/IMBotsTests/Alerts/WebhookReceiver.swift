import Foundation
import HTTPServer
import IMBots
import IMClient
import TestSupport
import Synchronization

/// A small webhook endpoint on 127.0.0.1, port 0, that records every request.
///
/// With `twins: 2` it holds each request until a second one with the same dedupe key
/// has arrived (or a guard passes), then answers both 200. Alertmanager records a
/// delivery in its gossiped notification log only after the receiver answered, so a
/// receiver slower than `--cluster.peer-timeout` gets the notification from both peers
/// of a pair: exactly what happens in production when a bridge is slow, and what the
/// bridge's dedupe must fold.
///
/// With a ``target`` it is a gate in front of the runner: each request, once its twin has
/// arrived, is passed on to the target and answered with the target's answer.
final class WebhookReceiver: HTTPResponder {
    private let received = Mutex<[Request]>([])
    private let forwardTo = Mutex<String?>(nil)
    let twins: Int
    let key: DedupeKey
    let guardTime: Duration

    init(twins: Int = 1, guardTime: Duration = .seconds(30)) throws {
        self.twins = twins
        self.key = try DedupeKey()
        self.guardTime = guardTime
    }

    /// Every request so far, in arrival order.
    var requests: [Request] { received.withLock { $0 } }

    /// Where requests are passed on (`http://127.0.0.1:PORT`); nil: answered 200 here.
    var target: String? {
        get { forwardTo.withLock { $0 } }
        set { forwardTo.withLock { $0 = newValue } }
    }

    func respond(to request: Request) async -> Response {
        let pairKey = pairingKey(request.body)
        received.withLock { $0.append(request) }
        if twins > 1 {
            try? await poll("the twin of a webhook", guardTime: guardTime) {
                self.requests.filter { self.pairingKey($0.body) == pairKey }.count >= self.twins
            }
        }
        guard let target else { return Response(status: 200) }
        let headers = request.headers.fields.filter { ["authorization", "content-type", "user-agent"].contains($0.name.lowercased()) }
        do {
            let answer = try await TestClient.sharedTransport.send(TransportRequest(
                method: request.method.rawValue, url: target + request.path, headers: headers, body: request.body,
                timeout: .seconds(30)))
            return Response(status: answer.status, body: answer.body)
        } catch {
            return Response(status: 502)
        }
    }

    private func pairingKey(_ body: Data) -> String {
        (try? key.key(for: WebhookFormat.alertmanager.decode(body))) ?? "unparsed"
    }

    /// Returns once `count` requests have arrived.
    func waitForRequests(_ count: Int) async throws -> [Request] {
        try await poll("\(count) webhook requests") { self.requests.count >= count }
        return requests
    }
}
