import Foundation
import IMClient
import Testing

@Suite("Cursor stores")
struct CursorStoreTests {
    private let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cursor-\(UUID().uuidString)").path

    @Test func aFileCursorSurvivesANewStoreOnTheSamePath() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/nested/cursor"

        #expect(try await FileCursorStore(path: path).load() == nil)
        try await FileCursorStore(path: path).save("v1.abc.1.a")
        try await FileCursorStore(path: path).save("v1.abc.1.b")

        #expect(try await FileCursorStore(path: path).load() == "v1.abc.1.b")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder + "/nested")
        #expect(names == ["cursor"])
    }

    @Test func aDamagedCursorFileReadsAsNoCursor() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/cursor"

        for damage in [Data(), Data("   \n".utf8), Data([0xFF, 0xFE, 0x00]), Data("two words".utf8),
                       Data(String(repeating: "x", count: 600).utf8)] {
            try damage.write(to: URL(fileURLWithPath: path))
            #expect(try await FileCursorStore(path: path).load() == nil)
        }
    }

    @Test func theMemoryStoreCountsSaves() async throws {
        let store = MemoryCursorStore(cursor: "a")

        try await store.save("b")
        try await store.save("c")

        #expect(try await store.load() == "c")
        #expect(store.saveCount == 2)
    }

    @Test func theProfileStoreKeepsACursorPerUser() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let profiles = ProfileStore(root: folder)

        try await profiles.cursorStore(for: "alice").save("v1.e.1.5")

        #expect(try await profiles.cursorStore(for: "alice").load() == "v1.e.1.5")
        #expect(try await profiles.cursorStore(for: "bob").load() == nil)
    }
}
