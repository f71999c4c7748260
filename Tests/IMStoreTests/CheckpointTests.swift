import Foundation
import IMStore
import Testing

/// The write-ahead log is copied back into the database by a background thread, and the
/// writer catches up itself when that falls behind, so the log does not grow without end.
@Suite struct CheckpointTests {
    @Test func theLogIsCheckpointedInTheBackgroundAndStaysBounded() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await closing(try openDatabase(directory)) { database async throws in

            // 600 writes of 96 KiB: about 14,400 log frames of 4 KiB in all, nearly twice
            // what the log may hold before the writer catches up.
            let blob = [UInt8](repeating: 0x5A, count: 96 * 1024)
            for index in 0..<600 {
                _ = try await database.insertItem(.blob(blob + [UInt8(index % 256)]))
            }
            // Whether the background thread kept up depends on scheduling; one of the two did.
            let stats = database.writerStats
            #expect(stats.backgroundCheckpoints + stats.catchUpCheckpoints > 0)

            let logBytes = try #require(
                try FileManager.default.attributesOfItem(atPath: directory.file("test.sqlite-wal"))[.size] as? Int)
            let frameBytes = 4096 + 24
            #expect(logBytes < 9_000 * frameBytes, "the log grew to \(logBytes / frameBytes) frames")

            let items = try await database.allItems()
            #expect(items.count == 600)
            #expect(items.values.allSatisfy { if case .blob(let bytes) = $0 { bytes.count == blob.count + 1 } else { false } })
        }
    }
}
