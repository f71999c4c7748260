import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("Child processes of the test harness")
struct ChildProcessTests {
    @Test("a child gets stdio only: it cannot hold the test process's sockets open")
    func noInheritedDescriptors() async throws {
        let socket = try LoopbackSocket(listenBacklog: 1)
        defer { close(socket.descriptor) }
        let log = TestServer.temporaryDirectory() + "/fds.log"
        let child = try ChildProcess("/bin/ls", arguments: ["/proc/self/fd"], log: log)
        #expect(try await child.exitStatus() == 0)
        let listed = Set(try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n"))
        // ls itself opens one descriptor to read the directory.
        #expect(listed.subtracting(["0", "1", "2"]).count <= 1, "\(listed.sorted())")
        if socket.descriptor > 3 {  // 3 would be ls's own directory descriptor
            #expect(!listed.contains(Substring(String(socket.descriptor))), "the listening socket leaked")
        }
    }

    /// A test's thread may block signals (commands run in-process watch SIGINT and
    /// SIGTERM, and dispatch's threads block most): a child started there must not inherit
    /// that, or it never hears SIGTERM (a tmux server then outlived its test by ten minutes).
    @Test("a child started where signals are blocked still hears SIGTERM")
    func cleanSignalState() async throws {
        let log = TestServer.temporaryDirectory() + "/sleep.log"
        let child: ChildProcess = try await withCheckedThrowingContinuation { continuation in
            Thread {
                var blocked = sigset_t()
                sigfillset(&blocked)
                pthread_sigmask(SIG_BLOCK, &blocked, nil)
                continuation.resume(with: Result { try ChildProcess("/bin/sleep", arguments: ["600"], log: log) })
            }.start()
        }
        await child.stop()
        #expect(try await child.exitStatus() == 128 + SIGTERM)
    }

    @Test("the exit status of a failing program is reported")
    func exitStatus() async throws {
        let child = try ChildProcess("/bin/sh", arguments: ["-c", "exit 3"], log: TestServer.temporaryDirectory() + "/exit.log")
        #expect(try await child.exitStatus() == 3)
        #expect(!child.isRunning)
    }
}
