#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// An append-only log file that can be reopened at its path, for log rotation: once
/// logrotate (or a person) has renamed the file, `reopen()` (on SIGHUP) starts a new one
/// at the path, and nothing is written to the renamed one after that.
///
/// Each `append` is one `write` call on a descriptor opened with `O_APPEND`, under a
/// lock: lines from many threads never interleave, and they land at the end of the file
/// even after logrotate's `copytruncate`. A line that cannot be written (a full disk) is
/// dropped and the error says why: a log must never stop the program.
public final class LogFile: Sendable {
    /// The file's path; nil for standard error.
    public let path: String?
    private let mode: mode_t
    private let enforcingMode: Bool
    private let descriptor: Mutex<Int32>

    /// Opens `path` for appending, creating it with `mode` when missing.
    ///
    /// - Parameter enforcingMode: also give `mode` to a regular file that is already
    ///   there, at every open (a private log stays private whatever made the file, a
    ///   person or logrotate's `create`).
    public init(path: String, mode: mode_t = 0o640, enforcingMode: Bool = false) throws(LogFileError) {
        self.path = path
        self.mode = mode
        self.enforcingMode = enforcingMode
        descriptor = Mutex(try Self.open(path, mode: mode, enforcingMode: enforcingMode))
    }

    private init(standardError: Void) {
        path = nil
        mode = 0
        enforcingMode = false
        descriptor = Mutex(2)
    }

    /// Standard error; `reopen()` leaves it as it is.
    public static let standardError = LogFile(standardError: ())

    deinit {
        let fd = descriptor.withLock { $0 }
        if path != nil { close(fd) }
    }

    /// Appends `bytes`, or throws why they could not all be written (what was not is
    /// dropped; the next line is tried afresh).
    public func append(_ bytes: [UInt8]) throws(LogFileError) {
        let failure: String? = bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return nil }
            return descriptor.withLock { fd in
                var offset = 0
                while offset < raw.count {
                    let written = write(fd, base + offset, raw.count - offset)
                    if written > 0 {
                        offset += written
                    } else if written < 0, errno == EINTR {
                        continue
                    } else {
                        return written < 0 ? String(cString: strerror(errno)) : "only \(offset) of \(raw.count) bytes written"
                    }
                }
                return nil
            }
        }
        if let failure { throw LogFileError(path: path ?? "standard error", reason: failure, writing: true) }
    }

    /// Appends `text` as UTF-8, or throws why it could not all be written.
    public func append(_ text: String) throws(LogFileError) { try append(Array(text.utf8)) }

    /// Opens the path again and writes there from now on; the old descriptor is closed
    /// once the lines being written to it are done. When the path cannot be opened the
    /// old file stays in use and the error says why.
    public func reopen() throws(LogFileError) {
        guard let path else { return }
        let fresh = try Self.open(path, mode: mode, enforcingMode: enforcingMode)
        let old = descriptor.withLock { fd in
            defer { fd = fresh }
            return fd
        }
        close(old)
    }

    private static func open(_ path: String, mode: mode_t, enforcingMode: Bool) throws(LogFileError) -> Int32 {
        let fd = Glibc.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, mode)
        guard fd >= 0 else { throw LogFileError(path: path, reason: String(cString: strerror(errno))) }
        var status = stat()
        // Only a regular file: a device (`/dev/full` in tests) keeps its own mode.
        if enforcingMode, fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG, fchmod(fd, mode) != 0 {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw LogFileError(path: path, reason: "cannot make it mode \(String(mode, radix: 8)): \(reason)")
        }
        return fd
    }
}

/// A log file that could not be opened or written: its path and the system's reason.
public struct LogFileError: Error, CustomStringConvertible, Equatable, Sendable {
    public var path: String
    public var reason: String
    /// True when writing failed, false when opening did.
    public var writing: Bool

    public var description: String { "cannot \(writing ? "write" : "open") the log file \(path): \(reason)" }

    public init(path: String, reason: String, writing: Bool = false) {
        self.path = path
        self.reason = reason
        self.writing = writing
    }
}
