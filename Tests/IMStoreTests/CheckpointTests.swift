import Dispatch
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

    /// A reader that keeps the old log in use cannot stop the writer: its catch-up does not
    /// wait for readers (SQLite's busy handler would have slept up to 5 s at every batch
    /// past the threshold), and once the reader is done the log starts over.
    @Test(.timeLimit(.minutes(2)))
    func aReaderHoldingTheLogDoesNotStopWrites() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await closing(try openDatabase(directory)) { database async throws in
            _ = try await database.insertItem(.text("before the reader"))
            let started = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let reading = Task {
                try await database.read { connection in
                    try connection.snapshot {
                        _ = try connection.scalar("SELECT count(*) FROM items")
                        started.signal()
                        release.wait()
                    }
                }
            }
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    started.wait()
                    continuation.resume()
                }
            }
            // Past the catch-up threshold (8,000 frames) while the reader holds its snapshot.
            let blob = [UInt8](repeating: 0x33, count: 96 * 1024)
            for index in 0..<400 {
                _ = try await database.insertItem(.blob(blob + [UInt8(index % 256)]))
            }
            #expect(database.writerStats.catchUpCheckpoints == 0)
            release.signal()
            try await reading.value
            for index in 0..<200 {
                _ = try await database.insertItem(.blob(blob + [UInt8(index % 256)]))
            }
            #expect(database.writerStats.catchUpCheckpoints > 0)
            #expect(try await database.allItems().count == 601)
        }
    }
}
