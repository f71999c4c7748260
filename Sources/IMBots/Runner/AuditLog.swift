import Foundation
import Synchronization

/// One JSON line per action a bot takes (or would take, in dry mode), appended to
/// `<state folder>/audit.log`: who, which rule, which config version, what, and how it
/// went. Rotate it with logrotate's `copytruncate`.
public final class AuditLog: Sendable {
    /// One line.
    public struct Entry: Encodable, Sendable {
        public var at: String
        public var bot: String
        public var rule: String
        public var configVersion: String
        public var action: String
        public var mode: String
        public var outcome: String
        public var conversation: String?
        public var event: Int64?
        public var detail: String?

        enum CodingKeys: String, CodingKey {
            case at, bot, rule, action, mode, outcome, conversation, event, detail
            case configVersion = "config_version"
        }
    }

    private let handle: Mutex<FileHandle?>
    private let encoder: JSONEncoder

    /// Appends to `path` (created when missing); nil writes nowhere.
    public init(path: String?) throws {
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let path else {
            handle = Mutex(nil)
            return
        }
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: path) {
            _ = FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o640])
        }
        guard let file = FileHandle(forWritingAtPath: path) else {
            throw RunnerError("cannot open the audit log \(path) for writing")
        }
        file.seekToEndOfFile()
        handle = Mutex(file)
    }

    public func record(_ entry: Entry) {
        guard var line = try? encoder.encode(entry) else { return }
        line.append(0x0A)
        handle.withLock { file in
            guard let file else { return }
            // O_APPEND semantics are not guaranteed after a copytruncate; seek each time.
            file.seekToEndOfFile()
            file.write(line)
        }
    }
}
