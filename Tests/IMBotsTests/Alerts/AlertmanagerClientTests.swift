import Foundation
import IMBots
import IMClient
import IMProtocol
import Testing

@Suite("Alertmanager API client (scripted peers)")
struct AlertmanagerClientTests {
    static let silenceList = #"""
        [{"id":"a1","status":{"state":"active"},"matchers":[{"name":"alertname","value":"DiskFull","isRegex":false,"isEqual":true}],
          "startsAt":"2026-01-05T09:00:00.000Z","endsAt":"2026-01-05T11:00:00.000Z","createdBy":"alice","comment":"fix","updatedAt":"x"},
         {"id":"e1","status":{"state":"expired"},"matchers":[],"startsAt":"","endsAt":"","createdBy":"bob","comment":""}]
        """#

    func client(_ transport: FakeTransport, peers: [String] = ["http://127.0.0.1:1", "http://127.0.0.1:2/"]) throws -> AlertmanagerClient {
        try AlertmanagerClient(peers: peers, transport: transport, timeout: .seconds(3))
    }

    @Test("a create goes to the first peer with the API's body and returns the id")
    func create() async throws {
        let transport = FakeTransport { _ in TransportResponse(status: 200, body: Data(#"{"silenceID":"s-1"}"#.utf8)) }
        let request = SilenceRequest(matchers: [SilenceMatcher(name: "alertname", value: "DiskFull")],
                                     start: Timestamp(milliseconds: 1_767_603_600_000), duration: .seconds(7200),
                                     createdBy: "alice", comment: "deploying")
        #expect(try await client(transport).createSilence(request) == "s-1")
        let sent = try #require(transport.requests.first)
        #expect(sent.method == "POST")
        #expect(sent.url == "http://127.0.0.1:1/api/v2/silences")
        #expect(sent.header("Content-Type") == "application/json")
        #expect(sent.timeout == .seconds(3))
        let body = try #require(try JSONSerialization.jsonObject(with: sent.body ?? Data()) as? [String: Any])
        #expect(body["startsAt"] as? String == "2026-01-05T09:00:00.000Z")
        #expect(body["endsAt"] as? String == "2026-01-05T11:00:00.000Z")
        #expect(body["createdBy"] as? String == "alice")
        let matchers = try #require(body["matchers"] as? [[String: Any]])
        #expect(matchers.first?["isEqual"] as? Bool == true)
        #expect(matchers.first?["isRegex"] as? Bool == false)
    }

    @Test("an unreachable or failing peer is skipped: the next one answers")
    func failover() async throws {
        let transport = FakeTransport(script: [
            .failure(TransportError(code: .cannotConnect, message: "refused", requestNotSent: true)),
            .success(TransportResponse(status: 200, body: Data(Self.silenceList.utf8))),
        ])
        let silences = try await client(transport).silences()
        #expect(silences.map(\.id) == ["a1"], "only active ones")
        #expect(transport.requests.map(\.url) == ["http://127.0.0.1:1/api/v2/silences", "http://127.0.0.1:2/api/v2/silences"])

        let failing = FakeTransport(script: [.success(TransportResponse(status: 503)),
                                             .success(TransportResponse(status: 200, body: Data(Self.silenceList.utf8)))])
        #expect(try await client(failing).silences(includeInactive: true).count == 2)
    }

    @Test("a 4xx is the cluster's answer and is not retried on the other peer")
    func rejected() async throws {
        let transport = FakeTransport { _ in TransportResponse(status: 400, body: Data(#""bad matcher""#.utf8)) }
        await #expect { try await client(transport).createSilence(
            SilenceRequest(matchers: [], start: Timestamp(milliseconds: 0), duration: .seconds(60), createdBy: "a", comment: "c"))
        } throws: { error in
            (error as? AlertmanagerClientError)?.code == .rejected && "\(error)".contains("bad matcher")
        }
        #expect(transport.requests.count == 1)
    }

    @Test("every peer down is 'unavailable', naming each")
    func allDown() async throws {
        let transport = FakeTransport { request in
            throw TransportError(code: .timedOut, message: "timed out after 3 s", requestNotSent: false)
        }
        do {
            _ = try await client(transport).silences()
            Issue.record("succeeded")
        } catch let error as AlertmanagerClientError {
            #expect(error.code == .unavailable)
            #expect(error.message.contains("127.0.0.1:1") && error.message.contains("127.0.0.1:2"))
        }
    }

    @Test("expire: DELETE on the id; not found only when no peer knows it")
    func expire() async throws {
        let found = FakeTransport(script: [.success(TransportResponse(status: 404)), .success(TransportResponse(status: 200))])
        try await client(found).expireSilence(id: "a1")
        #expect(found.requests.map(\.method) == ["DELETE", "DELETE"])
        #expect(found.requests.last?.url == "http://127.0.0.1:2/api/v2/silence/a1")

        let missing = FakeTransport { _ in TransportResponse(status: 404) }
        await #expect { try await client(missing).expireSilence(id: "zz") } throws: {
            ($0 as? AlertmanagerClientError)?.code == .notFound
        }
        await #expect { try await client(missing).expireSilence(id: "../status") } throws: {
            ($0 as? AlertmanagerClientError)?.code == .rejected
        }
    }

    @Test("a body that is not the API's is an invalid response; peers must be http(s)")
    func invalid() async throws {
        let transport = FakeTransport { _ in TransportResponse(status: 200, body: Data("<html>".utf8)) }
        await #expect { try await client(transport).silences() } throws: {
            ($0 as? AlertmanagerClientError)?.code == .invalidResponse
        }
        #expect(throws: AlertmanagerClientError.self) { try AlertmanagerClient(peers: ["ftp://x"], transport: transport) }
        #expect(throws: AlertmanagerClientError.self) { try AlertmanagerClient(peers: [], transport: transport) }
    }

    @Test("a draft silences the group's labels, shows what it mutes, and expires unconfirmed")
    func draft() throws {
        var tracker = IncidentTracker()
        _ = tracker.receive(AlertFixtures.group([AlertFixtures.alert("db-7"), AlertFixtures.alert("db-9")]), now: 1000)
        let incident = try #require(tracker.book.incidents.values.first)
        let draft = try #require(SilenceDraft(incident: incident, duration: .seconds(7200), reason: "fix",
                                              proposedBy: "alice", now: 1000))
        #expect(draft.matchers == [SilenceMatcher(name: "alertname", value: "DiskFull")])
        #expect(draft.mutedAlerts == ["db-7", "db-9"])
        #expect(draft.preview.contains(#"alertname="DiskFull""#))
        #expect(draft.preview.contains("It mutes 2 alerts of this incident: db-7, db-9."))
        #expect(draft.preview.contains("2h"))
        let request = draft.request(now: 1_767_603_600_000)
        #expect(request.comment == "fix")
        #expect(request.endsAt == "2026-01-05T11:00:00.000Z")

        var pending = SilenceConfirmations(capacity: 2)
        pending.propose(draft, conversation: "group:oncall", now: 1000)
        let byOther = pending.confirm(by: "bob", conversation: "group:oncall", now: 2000)
        #expect(byOther == nil, "only the proposer confirms")
        let confirmed = pending.confirm(by: "alice", conversation: "group:oncall", now: 2000)
        #expect(confirmed == draft)
        let again = pending.confirm(by: "alice", conversation: "group:oncall", now: 2000)
        #expect(again == nil, "once")
        pending.propose(draft, conversation: "group:oncall", now: 1000)
        let late = pending.confirm(by: "alice", conversation: "group:oncall", now: draft.expiresAt)
        #expect(late == nil, "expired")
    }

    @Test("matchers print as Alertmanager writes them")
    func matcherText() {
        #expect(SilenceMatcher(name: "a", value: #"x"y"#).description == #"a="x\"y""#)
        #expect(SilenceMatcher(name: "a", value: "db-.*", isRegex: true, isEqual: false).description == #"a!~"db-.*""#)
    }
}
