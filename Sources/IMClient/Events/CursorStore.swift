import Foundation
import Synchronization

/// Where an event stream keeps its cursor between runs.
///
/// The stream saves a cursor only after the consumer has handled every event before it,
/// so a restart resumes exactly there: nothing skipped, at most the last batch repeated.
public protocol CursorStore: Sendable {
    /// The saved cursor, or nil when there is none (or it cannot be read).
    func load() async throws -> String?
    /// Replaces the saved cursor.
    func save(_ cursor: String) async throws
}

/// A cursor in memory: for tests and for programs that start fresh each run.
public final class MemoryCursorStore: CursorStore {
    private let stored: Mutex<(cursor: String?, saves: Int)>

    /// A store holding `cursor`.
    public init(cursor: String? = nil) {
        stored = Mutex((cursor, 0))
    }

    /// The cursor saved last.
    public var cursor: String? { stored.withLock { $0.cursor } }

    /// How many times `save` was called.
    public var saveCount: Int { stored.withLock { $0.saves } }

    /// The cursor saved last.
    public func load() async throws -> String? { cursor }

    /// Keeps `cursor`.
    public func save(_ cursor: String) async throws {
        stored.withLock {
            $0.cursor = cursor
            $0.saves += 1
        }
    }
}

/// A cursor in a file, replaced atomically (temporary file, then rename) on every save.
public struct FileCursorStore: CursorStore {
    /// The file's path; its folder is created on the first save.
    public let path: String

    /// A store at `path`.
    public init(path: String) {
        self.path = path
    }

    /// The cursor in the file; nil when the file is missing, empty or not a cursor.
    public func load() async throws -> String? {
        guard let data = AtomicFile.read(path) else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        // A cursor is short printable ASCII; anything else is a damaged file.
        guard !text.isEmpty, text.count <= 512, text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        return text
    }

    /// Replaces the file's content with `cursor`.
    public func save(_ cursor: String) async throws {
        try AtomicFile.write(Data((cursor + "\n").utf8), to: path)
    }
}
