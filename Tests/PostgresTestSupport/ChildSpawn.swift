#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Starts a child process with `posix_spawn`: the one way the tests start programs
/// (`SpawnedProcess` in TestSupport, the test PostgreSQL server and `initdb` here).
///
/// Not Foundation's `Process`: its `run()` crashed now and then in a test process whose
/// other tests open and close descriptors all the time. The child gets none of the test
/// process's descriptors besides its standard ones (its sockets would otherwise outlive
/// their tests in the child), and a clean signal state: the test process blocks and
/// ignores signals now and then (commands run in-process watch SIGINT and SIGTERM), and a
/// child inheriting that would not hear the signals a test sends it.
///
/// A parent-death signal set in the child (`setpriv --pdeathsig`) fires when the thread
/// that called `start` ends: callers that rely on it call it from a thread that lives as
/// long as the child.
public enum ChildSpawn {
    /// Where one of the child's standard outputs goes.
    public enum Output: Sendable {
        /// A file, created when missing and appended to.
        case file(String)
        /// A descriptor of this process (e.g. a pipe's writing end), duplicated into the child.
        case descriptor(Int32)
    }

    /// Starts `executable` with `arguments` and `environment` (nil: this process's), in
    /// `directory` (nil: this process's); returns its pid. The caller reaps it (`waitpid`).
    public static func start(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
        standardInput: String = "/dev/null", standardOutput: Output = .file("/dev/null"), standardError: Output
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, standardInput, O_RDONLY, 0)
        for (fd, output) in [(Int32(1), standardOutput), (2, standardError)] {
            switch output {
            case .file(let path): posix_spawn_file_actions_addopen(&actions, fd, path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            case .descriptor(let source): posix_spawn_file_actions_adddup2(&actions, source, fd)
            }
        }
        closeFrom(3, &actions)
        if let directory { try changeDirectory(to: directory, &actions) }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let pairs = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        let envp = pairs.map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGCHLD] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        guard result == 0 else { throw SpawnError("cannot start \(executable): \(String(cString: strerror(result)))") }
        return child
    }

    /// Waits for `pid` to end (blocking the calling thread); returns its exit status, 128 +
    /// the signal when a signal ended it.
    public static func waitBlocking(_ pid: pid_t) -> Int32 {
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 {
            guard errno == EINTR else { return -1 }
        }
        return decode(raw)
    }

    /// The exit status in a raw `waitpid` status: 128 + the signal when a signal ended it.
    public static func decode(_ raw: Int32) -> Int32 {
        let signal = raw & 0x7F
        return signal == 0 ? (raw >> 8) & 0xFF : 128 + signal
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which the
    /// Swift module for glibc does not expose: looked up at run time.
    private static func closeFrom(_ lowest: Int32, _ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        else { return }
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, lowest)
    }

    /// glibc's `posix_spawn_file_actions_addchdir_np` (2.29 and later), looked up the same way.
    private static func changeDirectory(to directory: String, _ actions: inout posix_spawn_file_actions_t) throws {
        typealias ChangeDirectory =
            @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, UnsafePointer<CChar>?) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np") else {
            throw SpawnError("this C library cannot start a child in another directory (glibc 2.29 or later needed)")
        }
        _ = directory.withCString { unsafeBitCast(symbol, to: ChangeDirectory.self)(&actions, $0) }
    }
}

/// A child process that could not be started.
public struct SpawnError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
