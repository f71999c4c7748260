import Foundation
import Testing
import IMClient

@Suite("FakeTransport")
struct FakeTransportTests {
    @Test func scriptAnswersInOrderAndRecordsRequests() async throws {
        let busy = TransportError(code: .connectionLost, message: "lost")
        let fake = FakeTransport(script: [.failure(busy), .success(TransportResponse(status: 204))])

        let first = await #expect(throws: TransportError.self) {
            try await fake.send(TransportRequest(url: "http://h/1"))
        }
        let second = try await fake.send(TransportRequest(method: "POST", url: "http://h/2"))
        let third = await #expect(throws: TransportError.self) {
            try await fake.send(TransportRequest(url: "http://h/3"))
        }

        #expect(first == busy)
        #expect(second.status == 204)
        #expect(third?.code == .other)
        #expect(fake.requests.map(\.url) == ["http://h/1", "http://h/2", "http://h/3"])
    }

    @Test func handlerSeesTheRequest() async throws {
        let fake = FakeTransport { request in
            TransportResponse(status: 200, headers: [("X-Path", request.url)], body: request.body ?? Data())
        }

        let response = try await fake.send(TransportRequest(method: "PUT", url: "http://h/p", body: Data([1, 2])))

        #expect(response.header("x-path") == "http://h/p")
        #expect(response.body == Data([1, 2]))
    }

    @Test func cancellingASuspendedHandlerThrowsTransportCancelled() async throws {
        let fake = FakeTransport { _ in
            try await Task.sleep(for: .seconds(3600))  // a parked long-poll; cancellation ends it
            return TransportResponse(status: 200)
        }

        let poll = Task { try await fake.send(TransportRequest(url: "http://h/v1/events")) }
        poll.cancel()
        let error = await #expect(throws: TransportError.self) { try await poll.value }

        #expect(error?.code == .cancelled)
    }
}
