#if canImport(Glibc)
import Glibc
#endif
import Foundation
import IMClient
import SwitchboardCrypto

/// The runner's file operations on its state folder: private modes (folders 0700, files
/// 0600: they hold message text and passwords), writes that are atomic and survive a
/// power loss (the folder is synced after a rename), and errors thrown, never trapped on.
enum LocalFiles {
    /// Creates `folder` and its missing parents with mode 0700, and narrows an existing
    /// one to 0700.
    static func makePrivateFolder(_ folder: String) throws(RunnerError) {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) {
            guard isFolder.boolValue else { throw RunnerError("cannot use \(folder): it is a file, not a folder") }
        } else {
            let parent = (folder as NSString).deletingLastPathComponent
            if !parent.isEmpty, parent != folder, !FileManager.default.fileExists(atPath: parent) {
                try makePrivateFolder(parent)
            }
            guard mkdir(folder, 0o700) == 0 || errno == EEXIST else {
                throw RunnerError("cannot create the folder \(folder): \(SystemError.text())")
            }
        }
        guard chmod(folder, 0o700) == 0 else {
            throw RunnerError("cannot make \(folder) private (mode 0700): \(SystemError.text())")
        }
    }

    /// The file's bytes; nil when it does not exist.
    static func read(_ path: String) throws(RunnerError) -> Data? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw RunnerError("cannot read \(path): \(SystemError.text())")
        }
        defer { close(fd) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw RunnerError("cannot read \(path): \(SystemError.text())")
            }
            if count == 0 { return data }
            data.append(contentsOf: buffer[0..<count])
        }
    }

    /// Replaces `path` with `data` (mode 0600): written aside, synced, renamed, and the
    /// folder synced, so that after a crash or a power loss the file is either the old
    /// one or the new one.
    static func replace(_ path: String, with data: Data) throws(RunnerError) {
        do {
            try AtomicFile.write(data, to: path, mode: 0o600)
        } catch {
            throw RunnerError(error.message)
        }
        try syncFolder(of: path)
    }

    /// The secret kept in `path` (its first line), or a new random one written there
    /// (0600) when the file is missing or empty; whether it was made now.
    static func secret(at path: String, prefix: String) throws(RunnerError) -> (value: String, created: Bool) {
        if let kept = try keptSecret(at: path) { return (kept, false) }
        let generated = prefix + Digest.hex(SecureRandom.bytes(24))
        try replace(path, with: Data((generated + "\n").utf8))
        return (generated, true)
    }

    /// The secret kept in `path`; nil when the file is missing or empty.
    static func keptSecret(at path: String) throws(RunnerError) -> String? {
        guard let kept = try read(path) else { return nil }
        let text = String(decoding: kept, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    /// Syncs the folder holding `path`, so that a rename or a new file in it is durable.
    static func syncFolder(of path: String) throws(RunnerError) {
        let folder = (path as NSString).deletingLastPathComponent
        let fd = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw RunnerError("cannot open the folder \(folder): \(SystemError.text())") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw RunnerError("cannot sync the folder \(folder): \(SystemError.text())") }
    }
}

/// The text of the C library's last error.
enum SystemError {
    static func text(_ number: Int32 = errno) -> String {
        String(cString: strerror(number))
    }
}
