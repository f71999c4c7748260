#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Files written beside their final place and renamed into it, so that a reader (or a
/// crash) finds either the old file or the whole new one, never a part.
enum FileReplacement {
    /// Makes the file at `path` whole or not at all: `fill` writes a new, empty file of
    /// mode 0600 beside it, which is then synced and renamed over `path`; when `fill` or
    /// the rename fails the new file is removed and `path` is as it was.
    static func replace<T>(_ path: String, label: String, _ fill: (_ temporary: String) throws -> T) throws -> T {
        let temporary = try temporaryFile(beside: path, label: label)
        do {
            let result = try fill(temporary)
            try commit(temporary, to: path)
            return result
        } catch {
            discard(temporary)
            throw error
        }
    }

    /// A new, empty file of mode 0600 beside `path` (same folder, so the rename stays on
    /// one file system), named after it with `label` and a random part.
    static func temporaryFile(beside path: String, label: String) throws -> String {
        let folder = (path as NSString).deletingLastPathComponent
        let name = "." + (path as NSString).lastPathComponent + ".\(label)-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let temporary = folder.isEmpty ? name : (folder as NSString).appendingPathComponent(name)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw BackupError("cannot create \(temporary): \(systemReason())") }
        close(fd)
        return temporary
    }

    /// Syncs `temporary` to disk, renames it to `path` (replacing what is there) and syncs
    /// the folder, so the rename itself survives a power cut.
    static func commit(_ temporary: String, to path: String) throws {
        try sync(temporary)
        guard rename(temporary, path) == 0 else {
            throw BackupError("cannot rename \(temporary) to \(path): \(systemReason())")
        }
        try sync(folderOf: path)
    }

    /// Removes a temporary database file and the journal SQLite may have left beside it.
    static func discard(_ temporary: String) {
        unlink(temporary)
        unlink(temporary + "-journal")
    }

    static func sync(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw BackupError("cannot open \(path): \(systemReason())") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw BackupError("cannot sync \(path) to disk: \(systemReason())") }
    }

    static func sync(folderOf path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        try sync(folder.isEmpty ? "." : folder)
    }

    /// Whether two paths name the same file (the same device and inode); false when
    /// either does not exist.
    static func sameFile(_ first: String, _ second: String) -> Bool {
        var a = stat()
        var b = stat()
        guard stat(first, &a) == 0, stat(second, &b) == 0 else { return false }
        return a.st_dev == b.st_dev && a.st_ino == b.st_ino
    }

    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    static func systemReason() -> String { String(cString: strerror(errno)) }
}

/// A backup or restore that could not be done, with what to do about it.
public struct BackupError: Error, CustomStringConvertible, Equatable, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
