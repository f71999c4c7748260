import Foundation

/// The audit log's last lines, for the console: the lines after a byte offset the page
/// had (all of the last 64 KiB at first), and the offset to ask from next. A file that
/// shrank (logrotate) is read again from its start.
struct AuditTail {
    static let window: Int64 = 64 * 1024
    let path: String

    struct Answer: Encodable {
        /// Each line as the JSON object it is.
        let lines: [String]
        let next: Int64
    }

    func read(after offset: Int64?) throws -> Answer {
        guard let handle = FileHandle(forReadingAtPath: path) else { return Answer(lines: [], next: 0) }
        defer { try? handle.close() }
        let size = Int64(try handle.seekToEnd())
        var start = offset ?? max(0, size - Self.window)
        if start > size { start = 0 }
        if size - start > Self.window { start = size - Self.window }
        try handle.seek(toOffset: UInt64(start))
        let data = try handle.read(upToCount: Int(size - start)) ?? Data()
        // Only whole lines: a line being written now is read next time.
        guard let lastNewline = data.lastIndex(of: 0x0A) else { return Answer(lines: [], next: start) }
        var lines = data[data.startIndex...lastNewline].split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }
        // A first read that began inside a line drops its piece.
        if offset == nil, start > 0, !lines.isEmpty { lines.removeFirst() }
        return Answer(lines: lines, next: start + Int64(lastNewline - data.startIndex + 1))
    }
}
