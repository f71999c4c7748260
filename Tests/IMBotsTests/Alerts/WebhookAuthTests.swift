import Foundation
import HTTPServer
import IMBots
import Lifecycle
import Testing

@Suite("Webhook authentication")
struct WebhookAuthTests {
    let body = Data(#"{"status":"firing"}"#.utf8)

    func refusal(_ auth: WebhookAuth, _ headers: HTTPHeaders, body: Data? = nil,
                 now: Int64 = 1_767_603_600_000) -> WebhookAuthError.Code? {
        do {
            try auth.verify(headers: headers, body: body ?? self.body, nowMilliseconds: now)
            return nil
        } catch {
            #expect(error.apiError.code.httpStatus == 401)
            return error.code
        }
    }

    @Test("bearer: Alertmanager's Authorization header is let in, anything else is 401")
    func bearer() {
        let auth = WebhookAuth.bearer(token: "example-token")
        #expect(refusal(auth, ["Authorization": "Bearer example-token"]) == nil)
        #expect(refusal(auth, ["authorization": "bearer example-token"]) == nil, "scheme and name are case-insensitive")
        #expect(refusal(auth, ["Authorization": "Bearer example-tokeN"]) == .wrongCredentials)
        #expect(refusal(auth, ["Authorization": "Bearer example"]) == .wrongCredentials)
        #expect(refusal(auth, ["Authorization": "Bearer "]) == .malformedCredentials)
        #expect(refusal(auth, ["Authorization": "Basic ZXhhbXBsZS10b2tlbg=="]) == .malformedCredentials)
        #expect(refusal(auth, [:]) == .missingCredentials)
    }

    @Test("basic: user and password must both match")
    func basic() {
        let auth = WebhookAuth.basic(username: "am", password: "s3cret:with-colon")
        let good = Data("am:s3cret:with-colon".utf8).base64EncodedString()
        #expect(refusal(auth, ["Authorization": "Basic \(good)"]) == nil)
        let wrongUser = Data("AM:s3cret:with-colon".utf8).base64EncodedString()
        #expect(refusal(auth, ["Authorization": "Basic \(wrongUser)"]) == .wrongCredentials)
        let wrongPassword = Data("am:s3cret".utf8).base64EncodedString()
        #expect(refusal(auth, ["Authorization": "Basic \(wrongPassword)"]) == .wrongCredentials)
        #expect(refusal(auth, ["Authorization": "Basic !!!"]) == .malformedCredentials)
        #expect(refusal(auth, ["Authorization": "Bearer \(good)"]) == .malformedCredentials)
    }

    @Test("Grafana HMAC: the signature of timestamp:body matches an independent HMAC-SHA256")
    func grafanaKnownVector() {
        let signature = GrafanaSignature(secret: "grafana-secret")
        // Computed with Python's hmac module over b'1767603600:{"status":"firing"}'.
        #expect(signature.signature(body: body, timestamp: 1_767_603_600)
                == "becb96a2b4788b018378ff727aef8524141db08f445e1ab7e42f5a539ad00670")
        #expect(signature.signature(body: body, timestamp: nil)
                == "bf139e3403a31e4b49defad120bc97d578b44bd35af83566821426b9bb7fc97d")
    }

    @Test("Grafana HMAC: a fresh signed request is let in; a tampered, unsigned or replayed one is not")
    func grafanaVerify() {
        let time = ManualTime()
        let signature = GrafanaSignature(secret: "grafana-secret", window: .seconds(300))
        let auth = WebhookAuth.grafanaHMAC(signature)
        let sentAt = time.wallMilliseconds / 1000
        let headers: HTTPHeaders = [
            "X-Grafana-Alert-Signature": signature.signature(body: body, timestamp: sentAt),
            "X-Grafana-Alert-Timestamp": String(sentAt),
        ]
        #expect(refusal(auth, headers, now: time.wallMilliseconds) == nil)
        #expect(refusal(auth, headers, body: Data(#"{"status":"resolved"}"#.utf8), now: time.wallMilliseconds) == .wrongCredentials)

        var wrongTime = headers
        wrongTime.set("X-Grafana-Alert-Timestamp", String(sentAt + 1))
        #expect(refusal(auth, wrongTime, now: time.wallMilliseconds) == .wrongCredentials, "the timestamp is signed")

        var noTimestamp = headers
        noTimestamp.set("X-Grafana-Alert-Timestamp", "")
        #expect(refusal(auth, noTimestamp, now: time.wallMilliseconds) == .missingCredentials)
        #expect(refusal(auth, ["X-Grafana-Alert-Timestamp": String(sentAt)], now: time.wallMilliseconds) == .missingCredentials)

        time.advance(by: .seconds(300))
        #expect(refusal(auth, headers, now: time.wallMilliseconds) == nil, "the edge of the window is inside it")
        time.advance(by: .seconds(1))
        #expect(refusal(auth, headers, now: time.wallMilliseconds) == .staleTimestamp, "a replay after the window")

        let early = ManualTime(wallMilliseconds: (sentAt - 301) * 1000)
        #expect(refusal(auth, headers, now: early.wallMilliseconds) == .staleTimestamp, "a timestamp from the future")
    }

    @Test("Grafana HMAC: a signed timestamp too large for milliseconds is stale, not a crash",
          arguments: [Int64.max, Int64.max / 1000 + 1, 9_223_372_036_854_775])
    func grafanaHugeTimestamp(seconds: Int64) {
        // Found by the webhook fuzz target (Fuzz/Corpus/webhook/grafana-huge-timestamp).
        let signature = GrafanaSignature(secret: "grafana-secret")
        let headers: HTTPHeaders = [
            "X-Grafana-Alert-Signature": signature.signature(body: body, timestamp: seconds),
            "X-Grafana-Alert-Timestamp": String(seconds),
        ]
        #expect(refusal(.grafanaHMAC(signature), headers, now: Int64.min) == .staleTimestamp)
        #expect(refusal(.grafanaHMAC(signature), headers) == .staleTimestamp)
    }

    @Test("Grafana HMAC: header names are configurable, and a route may accept body-only signatures")
    func grafanaCustomHeaders() {
        let signature = GrafanaSignature(secret: "k", signatureHeader: "X-Sig", timestampHeader: nil)
        let auth = WebhookAuth.grafanaHMAC(signature)
        #expect(refusal(auth, ["X-Sig": signature.signature(body: body, timestamp: nil).uppercased()]) == nil)
        #expect(refusal(auth, ["X-Grafana-Alert-Signature": signature.signature(body: body, timestamp: nil)]) == .missingCredentials)
    }
}
