import Foundation
import HTTPServer
import Testing

@Suite struct BasicServingTests {
    @Test func simpleGetIsAnswered() async throws {
        let responder = TestResponder { request in .text("hello \(request.path)") }
        try await withServer(responder: responder) { server in
            #expect(server.port > 0)
            let client = try RawHTTPClient(port: server.port)
            try client.send(get("/world"))
            let response = try await client.response()
            #expect(response.status == 200)
            #expect(response.text == "hello /world")
            #expect(response.header("Content-Length") == "12")
            #expect(response.header("Content-Type") == "text/plain")
            #expect(server.stats.requestsTotal == 1)
        }
    }
}
