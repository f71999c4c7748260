#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PostgresTestSupport
import Synchronization

/// A child process started with `posix_spawn`, for tests and the soak harness that run
/// the `switchboard` executable (and other programs: promtool, nginx, sqlite3).
///
/// Started by `ChildSpawn` (not Foundation's `Process`: its `run()` crashed now and then
/// in a test process whose other tests open and close descriptors all the time). The
/// child gets standard input from a file (`/dev/null` unless given), its output as
/// `output` says, and none of this process's other descriptors.
public final class SpawnedProcess: Sendable {
    /// Where the child's output goes.
    public enum Output: Sendable {
        /// Standard error on a pipe, collected in `errors`; standard output to `/dev/null`.
        case collected
        /// Standard output and error appended to the file (made if missing): for long runs
        /// whose output would not fit in memory, and for a program restarted on the same log.
        case appended(toFile: String)
    }

    public let pid: pid_t
    private let status = Mutex<Int32?>(nil)
    private let collected = Mutex("")
    /// Set once standard error reached its end (the child, and whatever it started, closed it).
    private let errorsEnded = Atomic<Bool>(false)

    /// Starts `executable` with `arguments`, `environment` (nil: this process's), the
    /// file `standardInput` as its standard input, in `directory` (nil: this process's).
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        directory: String? = nil, standardInput: String = "/dev/null", output: Output = .collected
    ) throws {
        var pipeFDs: [Int32] = [-1, -1]
        let standardOutput: ChildSpawn.Output
        let standardError: ChildSpawn.Output
        switch output {
        case .collected:
            guard pipe(&pipeFDs) == 0 else { throw TestFailure("pipe: \(String(cString: strerror(errno)))") }
            for fd in pipeFDs { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            standardOutput = .file("/dev/null")
            standardError = .descriptor(pipeFDs[1])
        case .appended(let file):
            standardOutput = .file(file)
            standardError = .file(file)
        }
        let child: pid_t
        do {
            child = try ChildSpawn.start(
                executable, arguments, environment: environment, directory: directory, standardInput: standardInput,
                standardOutput: standardOutput, standardError: standardError)
            if pipeFDs[1] >= 0 { close(pipeFDs[1]) }
        } catch {
            if pipeFDs[1] >= 0 { close(pipeFDs[1]) }
            if pipeFDs[0] >= 0 { close(pipeFDs[0]) }
            throw TestFailure("\(error)")
        }
        pid = child
        let reading = pipeFDs[0]
        guard reading >= 0 else {
            // Nothing to collect: the output goes to a file.
            errorsEnded.store(true, ordering: .releasing)
            return
        }
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(reading, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                self.collected.withLock { $0 += String(decoding: buffer[..<count], as: UTF8.self) }
            }
            close(reading)
            self.errorsEnded.store(true, ordering: .releasing)
        }
        thread.start()
    }

    /// What the child wrote to standard error so far (`.collected` output only).
    public var errors: String { collected.withLock { $0 } }

    /// Everything the child wrote to standard error, once it has closed it (it exited);
    /// throws `HangError` when that does not happen within `hangGuard`.
    public func allErrors(hangGuard: Duration = .seconds(30)) async throws -> String {
        try await eventually("the end of \(pid)'s standard error", hangGuard: hangGuard) {
            errorsEnded.load(ordering: .acquiring)
        }
        return errors
    }

    /// Sends a signal to the child while it runs. Once it has ended (and been reaped) the
    /// pid may belong to another process, so nothing is sent.
    public func signal(_ number: Int32) {
        status.withLock { saved in
            guard saved == nil else { return }
            var raw: Int32 = 0
            switch waitpid(pid, &raw, WNOHANG) {
            case pid: saved = ChildSpawn.decode(raw)
            case 0: _ = kill(pid, number)
            default: return  // reaped by `waitForExit`'s thread just now
            }
        }
    }

    /// The exit status once the child has ended (128 + the signal when a signal ended it),
    /// or nil while it runs.
    public var exitStatus: Int32? {
        status.withLock { saved in
            if let saved { return saved }
            var raw: Int32 = 0
            guard waitpid(pid, &raw, WNOHANG) == pid else { return nil }
            saved = ChildSpawn.decode(raw)
            return saved
        }
    }

    /// Waits (on a thread of its own) for the child to end; returns its exit status.
    public func waitForExit() async -> Int32 {
        if let done = exitStatus { return done }
        let pid = self.pid
        let raw = await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            Thread {
                var raw: Int32 = 0
                while waitpid(pid, &raw, 0) < 0, errno == EINTR {}
                continuation.resume(returning: raw)
            }.start()
        }
        return status.withLock { saved in
            if saved == nil { saved = ChildSpawn.decode(raw) }
            return saved ?? -1
        }
        // (While the thread waits, `signal` may still reach the child: it is not reaped
        // until waitpid returns, so its pid stays its own.)
    }

    /// Sends `number` and waits for the child to end. A child still running after
    /// `hangGuard` (one that ignores the signal) is killed with SIGKILL and `HangError`
    /// thrown, so a test never waits on it for ever.
    @discardableResult
    public func stop(_ number: Int32 = SIGTERM, hangGuard: Duration = .seconds(30)) async throws -> Int32 {
        signal(number)
        do {
            return try await withHangGuard("process \(pid) ending on signal \(number)", hangGuard: hangGuard) {
                await self.waitForExit()
            }
        } catch {
            signal(SIGKILL)
            _ = await waitForExit()
            throw error
        }
    }
}
