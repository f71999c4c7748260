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
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3])
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

    // MARK: The cache's bounds (issue 8, item 23)

    private static func image(_ fill: UInt8, bytes: Int = 100) -> Data {
        Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: fill, count: bytes))
    }

    @Test func entriesAreNamedByTheSHA256OfTheirURL() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cache = AvatarCache(directory: folder)
        try cache.store(Self.image(1), for: "http://127.0.0.1:8080/v1/media/m1")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder)
        // SHA-256 of the URL, as `printf %s URL | sha256sum` gives it.
        #expect(names == ["05e363240f8aeba815767cea7f102d2e63d77953f543f8d6a7f076c5d5449fd8"])
        #expect(cache.data(for: "http://127.0.0.1:8080/v1/media/m1") == Self.image(1))
        #expect(cache.data(for: "http://127.0.0.1:8080/v1/media/m2") == nil)
    }

    @Test func onlyImagesAreStored() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cache = AvatarCache(directory: folder)
        let page = Data("<html>not an image</html>".utf8)
        let error = #expect(throws: IMClientError.self) { try cache.store(page, for: "https://example.com/a.png") }
        #expect(error?.code == .badResponse)
        #expect(cache.data(for: "https://example.com/a.png") == nil)
        #expect((try? FileManager.default.contentsOfDirectory(atPath: folder))?.isEmpty ?? true)
    }

    @Test func theLeastRecentlyUsedGoPastTheCount() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cache = AvatarCache(directory: folder, maxEntries: 3)
        for index in 0..<5 {
            let url = "https://example.com/\(index).png"
            try cache.store(Self.image(UInt8(index)), for: url)
            // Distinct, ordered use times, whatever the file system's resolution.
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSince1970: Double(1_000 + index))], ofItemAtPath: cache.path(for: url))
        }
        let kept = (0..<5).filter { cache.data(for: "https://example.com/\($0).png") != nil }
        #expect(kept == [2, 3, 4])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).count == 3)
    }

    @Test func theCacheStaysWithinItsBytes() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cache = AvatarCache(directory: folder, maxEntries: 100, maxBytes: 2 << 20)
        let big = 900_000
        for index in 0..<4 { try cache.store(Self.image(UInt8(index), bytes: big), for: "https://example.com/\(index).png") }
        let files = try FileManager.default.contentsOfDirectory(atPath: folder)
        let total = try files.reduce(0) { sum, name in
            sum + ((try FileManager.default.attributesOfItem(atPath: folder + "/" + name)[.size] as? Int) ?? 0)
        }
        #expect(total <= 2 << 20)
        #expect(files.count == 2)
        let tooBig = #expect(throws: IMClientError.self) {
            try cache.store(Self.image(9, bytes: Limits.avatarBytes), for: "https://example.com/huge.png")
        }
        #expect(tooBig?.code == .badResponse)
    }

    @Test func aDownloadThatIsNoImageIsRefused() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let transport = ScriptedTransport([.respond(TransportResponse(status: 200, body: Data("<html>".utf8)))])
        let client = IMClient(serverURL: Fixtures.server, transport: transport, token: "t")
        let cache = AvatarCache(directory: folder)
        let error = await #expect(throws: IMClientError.self) {
            try await client.avatar(of: Fixtures.user("alice", avatarURL: "https://example.com/a.png"), cache: cache)
        }
        #expect(error?.code == .badResponse)
        #expect(cache.data(for: "https://example.com/a.png") == nil)
    }
}
