import Foundation
import IMProtocol
import TestSupport
import Testing

/// Bodies before any login, tried from outside: a large body is read only once its
/// sender's token has been checked, anonymous requests get the small limit, and the
/// server holds no more body bytes than arrived.
@Suite struct LargeBodyTests {
    /// The head of a request declaring a body of `length` bytes, none of it sent.
    static func head(_ method: String, _ path: String, length: Int, token: String? = nil) -> String {
        let authorization = token.map { "Authorization: Bearer \($0)\r\n" } ?? ""
        return "\(method) \(path) HTTP/1.1\r\nHost: t\r\n\(authorization)Content-Type: application/json\r\n"
            + "Content-Length: \(length)\r\n\r\n"
    }

    static func port(_ server: TestServer) -> Int { server.app.port }

    /// 48 anonymous connections declaring 4 MiB journal writes: each is answered 401 at
    /// once, and the server holds none of their bodies.
    @Test func anonymousLargeBodiesAreAnswered401WithoutBeingRead() async throws {
        try await withServer { server in
            var clients: [RawHTTPClient] = []
            for _ in 0..<48 {
                let client = try RawHTTPClient(port: Self.port(server))
                try client.send(Self.head("POST", "/v1/me/journal/records", length: 4 << 20))
                clients.append(client)
            }
            for client in clients {
                let response = try await client.response()
                #expect(response.status == 401)
                #expect(response.text.contains(#""code":"UNAUTHORIZED""#))
            }
            #expect(try await server.metric("switchboard_http_buffered_body_bytes") == 0)
            #expect(try await server.metric("switchboard_http_refused_before_body_total") == 48)
        }
    }

    /// A token that is no login's, and the process-local administration credential on a
    /// route outside `/v1/admin`, are refused before the body too.
    @Test func aRefusedTokenIsAnsweredBeforeTheBody() async throws {
        try await withServer { server in
            let forged = try RawHTTPClient(port: Self.port(server))
            try forged.send(Self.head("PUT", "/v1/me/avatar", length: 2 << 20, token: "sbt_forged"))
            let invalid = try await forged.response()
            #expect(invalid.status == 401)
            #expect(invalid.text.contains(#""reason":"invalid""#))

            let local = try RawHTTPClient(port: Self.port(server))
            try local.send(Self.head("PUT", "/v1/me/avatar", length: 2 << 20, token: try await server.app.localAdministratorToken()))
            #expect(try await local.response().status == 403)
            #expect(try await server.metric("switchboard_http_buffered_body_bytes") == 0)
        }
    }

    /// A logged-in caller's large upload is read once its token checks out, up to the
    /// route's limit.
    @Test func aLoggedInCallersLargeUploadIsRead() async throws {
        try await withServer { server in
            let (alice, _) = try await server.client.register("alice")
            let image = Data(ImageBytes.png + Array(repeating: 7, count: 100 * 1024))
            let uploaded = try await alice.send(
                "PUT", "/v1/me/avatar", body: image, headers: [(name: "Content-Type", value: "image/png")])
            expectStatus(uploaded, 200)
            let tooLarge = try RawHTTPClient(port: Self.port(server))
            try tooLarge.send(Self.head("PUT", "/v1/me/avatar", length: Limits.avatarBytes + 1, token: alice.token))
            #expect(try await tooLarge.response().status == 413)
        }
    }

    /// An anonymous body larger than the small limit, on a route anyone may call, is
    /// refused 413 without being read.
    @Test func anonymousBodiesGetTheSmallLimit() async throws {
        try await withServer { server in
            let client = try RawHTTPClient(port: Self.port(server))
            try client.send(Self.head("POST", "/v1/register", length: 64 * 1024))
            let response = try await client.response()
            #expect(response.status == 413)
            #expect(response.text.contains("limit 16384 bytes"))
        }
    }
}
