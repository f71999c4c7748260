#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import Testing

/// `LogFile`: appends whole lines, moves to a new file at its path on `reopen()` (log
/// rotation), and never traps on a file it cannot write.
@Suite final class LogFileTests {
    let folder: String

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("logfile-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: folder) }

    func text(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    @Test func linesAreAppendedToWhatIsThere() throws {
        let path = folder + "/server.log"
        try "earlier\n".write(toFile: path, atomically: false, encoding: .utf8)
        let file = try LogFile(path: path)
        try file.append("one\n")
        try file.append("two\n")
        #expect(try text(path) == "earlier\none\ntwo\n")
    }

    @Test func afterARenameReopenStartsANewFileAndTheOldOneGetsNothingMore() throws {
        let path = folder + "/server.log"
        let file = try LogFile(path: path)
        try file.append("before rotation\n")
        try FileManager.default.moveItem(atPath: path, toPath: path + ".1")
        try file.append("still the old file\n")

        try file.reopen()
        try file.append("after rotation\n")

        #expect(try text(path + ".1") == "before rotation\nstill the old file\n")
        #expect(try text(path) == "after rotation\n")
    }

    @Test func aSinkWritesTimestampedLinesThatFollowTheReopen() throws {
        let path = folder + "/server.log"
        let file = try LogFile(path: path)
        let logger = Logger(label: "server", sink: FileLogSink(file))
        logger.info("listening", [("port", "8080")])
        try FileManager.default.moveItem(atPath: path, toPath: path + ".1")
        try file.reopen()
        logger.warning("after", [("why", "two words")])

        let old = try text(path + ".1")
        #expect(old.hasSuffix(" info server: listening port=8080\n"))
        #expect(old.hasPrefix("20"))
        #expect(try text(path).hasSuffix(" warning server: after why=\"two words\"\n"))
    }

    @Test func linesFromManyThreadsNeverInterleave() async throws {
        let path = folder + "/busy.log"
        let file = try LogFile(path: path)
        let line = String(repeating: "x", count: 3000) + "\n"
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    for index in 0..<200 {
                        if index == 100, writer == 0 { try? file.reopen() }
                        try? file.append("\(writer) " + line)
                    }
                }
            }
        }
        let lines = try text(path).split(separator: "\n")
        #expect(lines.count == 8 * 200)
        #expect(lines.allSatisfy { $0.count == 3002 && $0.hasSuffix("x") })
    }

    @Test func aFullDiskDropsTheLineAndSaysWhy() throws {
        let file = try LogFile(path: "/dev/full")
        let full = LogFileError(path: "/dev/full", reason: "No space left on device", writing: true)
        #expect(throws: full) { try file.append("lost\n") }
        #expect(full.description == "cannot write the log file /dev/full: No space left on device")
        try file.reopen()
        #expect(throws: full) { try file.append("lost again\n") }
    }

    @Test func aPathThatCannotBeOpenedNamesTheFileAndTheReason() throws {
        let path = folder + "/missing/server.log"
        #expect(throws: LogFileError(path: path, reason: "No such file or directory")) { try LogFile(path: path) }
        let file = try LogFile(path: folder + "/server.log")
        try FileManager.default.removeItem(atPath: folder)
        // Reopening where the folder went keeps writing to the file that was open.
        #expect(throws: LogFileError.self) { try file.reopen() }
        try file.append("kept\n")
    }

    @Test func standardErrorIsNotReopened() throws {
        #expect(LogFile.standardError.path == nil)
        try LogFile.standardError.reopen()
    }
}
