import Foundation
import HTTPServer
import IMBots
import IMProtocol
import Testing

@Suite("Webhook route: secret, then body, then the answer")
struct WebhookRouteTests {
    let route = WebhookRoute(path: "/hooks/alertmanager", format: .alertmanager, auth: .bearer(token: "example-token"))
    let good: HTTPHeaders = ["Authorization": "Bearer example-token", "Content-Type": "application/json"]

    func rejection(_ headers: HTTPHeaders, _ body: Data) -> WebhookRejection? {
        do {
            _ = try route.accept(headers: headers, body: body, nowMilliseconds: 0)
            return nil
        } catch {
            return error
        }
    }

    func envelope(_ response: Response) throws -> APIError {
        try JSONDecoder().decode(ErrorEnvelope.self, from: response.body).error
    }

    @Test("Alertmanager's real request is accepted")
    func accepted() throws {
        let payload = try route.accept(headers: good, body: try AlertFixtures.body("alertmanager/firing.json"), nowMilliseconds: 0)
        #expect(payload.notification?.alerts.count == 2)
    }

    @Test("a wrong secret is 401 even when the body is bad too: bodies of strangers are never parsed")
    func authFirst() throws {
        let refused = try #require(rejection(["Authorization": "Bearer nope"], Data("not json".utf8)))
        let response = refused.response
        #expect(response.status == 401)
        #expect(try envelope(response).code == .unauthorized)
        #expect(try envelope(response).reason == "wrong_credentials")
        #expect(!String(decoding: response.body, as: UTF8.self).contains("example-token"))
    }

    @Test("a bad body is 400 with the field; a body over a bound is 413")
    func badBody() throws {
        let refused = try #require(rejection(good, Data(#"{"version":"4","status":"firing","alerts":[]}"#.utf8)))
        #expect(refused.response.status == 400)
        let error = try envelope(refused.response)
        #expect(error.code == .invalidRequest)
        #expect(error.field == "groupKey")
        #expect(refused.response.headers["Content-Type"] == "application/json")

        let small = WebhookRoute(path: "/h", format: .alertmanager, auth: .bearer(token: "example-token"),
                                 limits: PayloadLimits(maxAlerts: 1))
        do {
            _ = try small.accept(headers: good, body: try AlertFixtures.body("alertmanager/firing.json"), nowMilliseconds: 0)
            Issue.record("accepted two alerts with a bound of one")
        } catch let error as WebhookRejection {
            #expect(error.response.status == 413)
            #expect(try envelope(error.response).code == .payloadTooLarge)
        }
    }

    @Test("'cannot store now' is 503 with Retry-After, never 429")
    func unavailable() throws {
        let response = WebhookRejection.unavailable(retryAfter: 5).response
        #expect(response.status == 503)
        #expect(response.headers["Retry-After"] == "5")
        #expect(try envelope(response).retryAfter == 5)
        #expect(try envelope(response).code == .unavailable)
    }
}
