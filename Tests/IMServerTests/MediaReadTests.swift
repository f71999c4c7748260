import Foundation
import HTTPServer
import IMProtocol
import Lifecycle
import TestSupport
import Testing

@testable import IMServer

/// Anonymous media reads, tried from outside: one address gets a budget of media bytes
/// (a burst, then a steady rate), and a client that has an image asks with its `ETag`
/// and gets 304, which costs nothing.
@Suite struct MediaReadTests {
    @Test func oneAddressReadsMediaWithinItsBudgetAndRevalidatesForFree() async throws {
        let time = ManualTime()
        try await withServer(time: time, { config in
            config.rateLimits.enabled = true
            config.rateLimits.mediaBytes = .init(rate: 10 * 1024, burst: 300 * 1024)
        }) { server in
            let (alice, _) = try await server.client.register("alice")
            let image = Data(ImageBytes.png + Array(repeating: 7, count: 100 * 1024 - ImageBytes.png.count))
            let upload = try await alice.send(
                "PUT", "/v1/me/avatar", body: image, headers: [(name: "Content-Type", value: "image/png")])
            let url = try upload.decode(AvatarUpload.self).media.url

            var etag = ""
            for _ in 0..<3 {
                let read = try await server.client.get(url)
                expectStatus(read, 200)
                #expect(read.body == image)
                #expect(read.header("Cache-Control") == "public, max-age=31536000, immutable")
                etag = try #require(read.header("ETag"))
            }
            let refused = try await server.client.get(url)
            expectError(refused, .rateLimited)
            #expect(refused.header("Retry-After") != nil)

            // A client that has it asks whether it changed: 304, whatever the budget.
            for tag in [etag, "W/\(etag)", "\"other\", \(etag)", "*"] {
                let cached = try await server.client.send("GET", url, headers: [(name: "If-None-Match", value: tag)])
                expectStatus(cached, 304)
                #expect(cached.body.isEmpty)
            }
            // Another address has a budget of its own; time brings this one's back.
            let other = try await server.client.send("GET", url, headers: [(name: "X-Forwarded-For", value: "198.51.100.7")])
            #expect(other.status == 429, "127.0.0.1 is not a trusted proxy here: the header changes nothing")
            time.advance(by: .seconds(11))
            expectStatus(try await server.client.get(url), 200)
        }
    }
}
