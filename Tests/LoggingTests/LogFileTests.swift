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

    /// A private log stays private: with `enforcingMode` a file that is already there (made
    /// by a person, or by logrotate's `create 0644`) gets the mode at the open and at each
    /// reopen; without it the file keeps its own.
    @Test func anEnforcedModeIsGivenToAFileThatIsAlreadyThere() throws {
        func mode(_ path: String) throws -> Int? {
            try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        }
        let path = folder + "/audit.log"
        try "earlier\n".write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o644)
        let file = try LogFile(path: path, mode: 0o600, enforcingMode: true)
        #expect(try mode(path) == 0o600)
        try FileManager.default.moveItem(atPath: path, toPath: path + ".1")
        try "made by logrotate\n".write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o644)
        try file.reopen()
        try file.append("next\n")
        #expect(try mode(path) == 0o600)
        #expect(try text(path) == "made by logrotate\nnext\n")

        let other = folder + "/server.log"
        try "".write(toFile: other, atomically: false, encoding: .utf8)
        chmod(other, 0o644)
        _ = try LogFile(path: other, mode: 0o600)
        #expect(try mode(other) == 0o644)
    }
}

/// `LogText`: what could break or disguise a log line is escaped, in every field.
@Suite struct LogTextTests {
    @Test func controlSeparatorAndBidiCharactersAreEscaped() {
        #expect(LogText.escaped("plain text, ünïcödé and emoji 🙂") == "plain text, ünïcödé and emoji 🙂")
        #expect(LogText.escaped("a\nb\rc\td") == #"a\nb\rc\td"#)
        #expect(LogText.escaped("\u{1B}[31mred\u{7F}\u{85}") == #"\u{1B}[31mred\u{7F}\u{85}"#)
        #expect(LogText.escaped("x\u{2028}y\u{202E}z\u{2066}") == #"x\u{2028}y\u{202E}z\u{2066}"#)
    }

    @Test func everyFieldOfASinkLineIsEscaped() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("logtext-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = try LogFile(path: folder + "/x.log")
        let logger = Logger(label: "serv\ner", sink: FileLogSink(file))
        logger.warning("one\ntwo", [("pe\ner", "1.2.3.4\nforged"), ("said", #"a "quoted" word"#)])
        let text = try String(contentsOfFile: folder + "/x.log", encoding: .utf8)
        #expect(text.split(separator: "\n").count == 1)
        #expect(text.hasSuffix(#"warning serv\ner: one\ntwo pe\ner=1.2.3.4\nforged said="a \"quoted\" word""# + "\n"))
    }
}
