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

    @Test("the exit status of a failing program is reported")
    func exitStatus() async throws {
        let child = try ChildProcess("/bin/sh", arguments: ["-c", "exit 3"], log: TestServer.temporaryDirectory() + "/exit.log")
        #expect(try await child.exitStatus() == 3)
        #expect(!child.isRunning)
    }
}
