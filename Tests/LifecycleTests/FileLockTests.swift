#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Lifecycle
import Testing

/// `FileLock`: one holder at a time (within one process too), named by its pid, and free
/// again once released.
@Suite struct FileLockTests {
    @Test func aSecondLockIsRefusedNamingTheHolderUntilTheFirstIsReleased() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("lock-\(UUID().uuidString)").path
        defer { unlink(path) }
        let first = try FileLock(path: path)
        #expect(throws: FileLock.Failure.held(pid: String(getpid()))) { try FileLock(path: path) }
        first.release()
        first.release()
        let second = try FileLock(path: path)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "\(getpid())\n")
        second.release()
    }

    @Test func aPathThatCannotBeOpenedSaysWhy() {
        #expect(throws: FileLock.Failure.cannotOpen("No such file or directory")) {
            try FileLock(path: "/nonexistent-folder/x.lock")
        }
    }
}
