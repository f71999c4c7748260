import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole-file writes that readers never see half done: the bytes go to a temporary file
/// in the same folder, are flushed, and then renamed over the target.
public enum AtomicFile {
    /// Writes `data` to `path` with permissions `mode`, creating missing folders (0700).
    public static func write(_ data: Data, to path: String, mode: mode_t = 0o644) throws(IMClientError) {
        let folder = (path as NSString).deletingLastPathComponent
        try makeFolder(folder)
        let name = (path as NSString).lastPathComponent
        let temporary = folder + "/." + name + ".tmp-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw failure("cannot create", temporary) }
        var closed = false
        defer {
            if !closed { close(fd) }
        }
        // The umask may have narrowed or (for 0600 files) must not widen the mode.
        guard fchmod(fd, mode) == 0 else { throw cleanUp(temporary, failure("cannot set permissions of", temporary)) }
        guard writeAll(fd, data), fsync(fd) == 0 else { throw cleanUp(temporary, failure("cannot write", path)) }
        closed = true
        guard close(fd) == 0 else { throw cleanUp(temporary, failure("cannot write", path)) }
        guard rename(temporary, path) == 0 else { throw cleanUp(temporary, failure("cannot replace", path)) }
    }

    /// Writes every byte of `bytes` to `fd`, retrying after interrupts; false on an error
    /// (`errno` says which).
    public static func writeAll(_ fd: Int32, _ bytes: some ContiguousBytes) -> Bool {
        writeEveryByte(fd, bytes)
    }

    /// The file's bytes, or nil when it is missing or unreadable.
    public static func read(_ path: String) -> Data? {
        FileManager.default.contents(atPath: path)
    }

    /// Removes `path`; a missing file is fine.
    public static func remove(_ path: String) throws(IMClientError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw failure("cannot remove", path) }
    }

    /// Creates `folder` and its parents with mode 0700 when missing.
    public static func makeFolder(_ folder: String) throws(IMClientError) {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) {
            guard isFolder.boolValue else {
                throw IMClientError(.localStorage, "cannot use \(folder): it is a file, not a folder")
            }
            return
        }
        do {
            try FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw IMClientError(.localStorage, "cannot create the folder \(folder): \(error.localizedDescription)")
        }
    }

    private static func failure(_ what: String, _ path: String) -> IMClientError {
        IMClientError(.localStorage, "\(what) \(path): \(String(cString: strerror(errno)))")
    }

    private static func cleanUp(_ temporary: String, _ error: IMClientError) -> IMClientError {
        unlink(temporary)
        return error
    }
}

/// Writes every byte of `bytes` to `fd`, retrying after interrupts; false on an error.
/// (A free function: inside `AtomicFile`, `write` names its own method.)
private func writeEveryByte(_ fd: Int32, _ bytes: some ContiguousBytes) -> Bool {
    bytes.withUnsafeBytes { buffer -> Bool in
        guard let base = buffer.baseAddress else { return true }
        var offset = 0
        while offset < buffer.count {
            let result = write(fd, base + offset, buffer.count - offset)
            if result < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += result
        }
        return true
    }
}
