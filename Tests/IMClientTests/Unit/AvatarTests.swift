import Foundation
import IMClient
import IMProtocol
import Testing

@Suite("Avatars")
struct AvatarTests {
    private let folder = FileManager.default.temporaryDirectory.appendingPathComponent("avatars-\(UUID().uuidString)").path

    @Test func theDefaultAvatarIsAPNG() {
        #expect(DefaultAvatar.png.count > 50)
        #expect(Array(DefaultAvatar.png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    }

    @Test func aUserWithoutAvatarGetsTheDefaultWithoutARequest() async throws {
        let transport = ScriptedTransport([])
        let client = IMClient(serverURL: Fixtures.server, transport: transport, token: "t")

        let image = try await client.avatar(of: Fixtures.user("alice"))

        #expect(image == DefaultAvatar.png)
        #expect(transport.requests.isEmpty)
    }

    @Test func anAvatarIsDownloadedOnceThenServedFromTheCache() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let png = Data([0x89, 0x50, 0x4E, 0x47, 1, 2, 3])
        let transport = ScriptedTransport([.respond(TransportResponse(status: 200, body: png))])
        let client = IMClient(serverURL: Fixtures.server, transport: transport, token: "t")
        let cache = AvatarCache(directory: folder)
        let alice = Fixtures.user("alice", avatarURL: "/v1/media/m1")

        let first = try await client.avatar(of: alice, cache: cache)
        let second = try await client.avatar(of: alice, cache: AvatarCache(directory: folder))

        #expect(first == png)
        #expect(second == png)
        #expect(transport.requests.map(\.url) == ["http://127.0.0.1:8080/v1/media/m1"])
        #expect(transport.requests[0].header("Authorization") == nil)
    }

    @Test func aMissingImageIsAnErrorNamingTheURL() async throws {
        let transport = ScriptedTransport([.respond(Fixtures.error(.notFound, "no media 'm9'"))])
        let client = IMClient(serverURL: Fixtures.server, transport: transport)

        let error = await #expect(throws: IMClientError.self) { try await client.media("/v1/media/m9") }

        #expect(error?.code == .api(.notFound))
        #expect(error?.message == "cannot download http://127.0.0.1:8080/v1/media/m9: no media 'm9'")
    }

    @Test func aURLThatIsNotHTTPIsRefused() async throws {
        let client = IMClient(serverURL: Fixtures.server, transport: ScriptedTransport([]))

        let error = await #expect(throws: IMClientError.self) { try await client.media("file:///etc/passwd") }

        #expect(error?.code == .invalidArgument)
    }

    @Test func anOversizedAvatarIsRefusedBeforeUpload() async throws {
        let transport = ScriptedTransport([])
        let client = IMClient(serverURL: Fixtures.server, transport: transport, token: "t")

        let error = await #expect(throws: IMClientError.self) {
            try await client.uploadAvatar(Data(count: Limits.avatarBytes + 1))
        }

        #expect(error?.code == .invalidArgument)
        #expect(transport.requests.isEmpty)
    }
}
