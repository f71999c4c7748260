import IMBots
import IMProtocol
import Templates
import Testing

@Suite("Living message and splitting")
struct IncidentRendererTests {
    typealias F = AlertFixtures

    func incident(_ count: Int, summary: String? = nil) -> Incident {
        var tracker = IncidentTracker()
        _ = tracker.receive(F.group((0..<count).map { F.alert("db-\($0)", summary: summary) }), now: 1)
        return tracker.book.incidents.values.first!
    }

    @Test("a group of a thousand alerts stays under the server's limit, the rest summed up")
    func manyInstances() {
        let limit = Limits.messageTextLength.upperBound
        let text = IncidentRenderer().message(for: incident(1000))
        #expect(text.count <= limit)
        #expect(text.contains("1000 firing"))
        let shown = text.split(separator: "\n").filter { $0.hasPrefix("• ") }.count
        #expect(text.hasSuffix("…and \(1000 - shown) more"))
        #expect(shown > 20)
        // The text is what the server accepts for a message.
        #expect(throws: Never.self) { try Validate.text(text, field: "text", length: Limits.messageTextLength, multiline: true) }
    }

    @Test("a huge annotation is cut on its line, and a small limit is honoured")
    func longLines() {
        let text = IncidentRenderer(limit: 500).message(for: incident(30, summary: String(repeating: "x", count: 10_000)))
        #expect(text.count <= 500)
        for line in text.split(separator: "\n") { #expect(line.count <= 300) }
        #expect(text.contains("…and "))
    }

    @Test("user templates shape the title and the lines")
    func templates() throws {
        let renderer = IncidentRenderer(templates: .init(
            title: try Template(source: "{{incident.commonLabels.alertname}} [{{incident.commonLabels.severity}}]"),
            line: try Template(source: "{{alert.labels.instance}} ({{alert.status}})")))
        let text = renderer.message(for: incident(2))
        #expect(text.hasPrefix("🔥 FIRING: DiskFull [critical]\n"))
        #expect(text.contains("• db-0 (firing)"))
    }

    @Test("alerts the source truncated, and alerts past the incident's bound, are counted, not repeated")
    func untracked() throws {
        var tracker = IncidentTracker(policy: IncidentPolicy(maxInstances: 2))
        var group = F.group((0..<5).map { F.alert("db-\($0)") })
        group.truncatedAlerts = 7
        let first = tracker.receive(group, now: 1)
        let second = tracker.receive(group, now: 2)
        guard case .post(_, _, let text)? = first.first else { Issue.record("\(first)"); return }
        #expect(text.contains("(7 more alerts were left out by the source)"))
        #expect(text.contains("(3 more alerts not tracked: this incident is full)"))
        #expect(text.contains("2 firing"))
        guard case .post(_, _, let again)? = second.first else { Issue.record("\(second)"); return }
        #expect(again == text, "the same notification again counts the same")
    }

    @Test("short messages are not split")
    func noSplit() {
        #expect(MarkedParts.split("hello\nworld", limit: 100) == ["hello\nworld"])
    }

    @Test("long messages split on line boundaries with (i/n) markers, nothing lost")
    func split() {
        let lines = (1...300).map { "line \($0) of the report" }
        let text = lines.joined(separator: "\n")
        let parts = MarkedParts.split(text, limit: 1000)
        #expect(parts.count > 1)
        for (index, part) in parts.enumerated() {
            #expect(part.count <= 1000)
            #expect(part.hasPrefix("(\(index + 1)/\(parts.count)) "))
        }
        let rejoined = parts.map { String($0.drop(while: { $0 != " " }).dropFirst()) }.joined(separator: "\n")
        #expect(rejoined == text)
    }

    /// A reply within the server's 4,096 characters can still be over its 32 KiB: a family
    /// emoji is one character of 25 bytes. Its parts keep within both limits.
    @Test("a message over the byte limit splits too, each part within both limits")
    func overTheByteLimit() {
        let family = "👨‍👩‍👧‍👦"
        let text = String(repeating: family, count: 3_000)
        #expect(text.count == 3_000 && text.utf8.count == 75_000)
        let parts = MarkedParts.split(text)
        #expect(parts.count == 3)
        for part in parts {
            #expect(part.count <= Limits.messageTextLength.upperBound)
            #expect(part.utf8.count <= Limits.byteLimit(for: Limits.messageTextLength))
        }
        #expect(parts.map { String($0.drop(while: { $0 != " " }).dropFirst()) }.joined() == text)
    }

    /// One character of more bytes than a message may hold (a letter with thousands of
    /// combining marks, which a sender's text repeated by a template can make) is cut
    /// between its code points: the splitter ends, nothing is lost.
    @Test("a character over the byte limit is cut, and the splitting ends")
    func oneCharacterOverTheByteLimit() {
        let huge = "a" + String(repeating: "\u{301}", count: 40_000)
        #expect(huge.count == 1)
        let parts = MarkedParts.split("before " + huge + " after")
        #expect(parts.count == 4)
        for part in parts { #expect(part.utf8.count <= Limits.byteLimit(for: Limits.messageTextLength)) }
        let body = parts.map { String($0.unicodeScalars.drop(while: { $0 != " " }).dropFirst()) }
        // The break after "before" goes, as any break a part ends at; the rest is all there.
        #expect(body.joined().unicodeScalars.elementsEqual(("before" + huge + " after").unicodeScalars))
    }

    @Test("a line longer than a part is cut at spaces, and markers widen past nine parts")
    func longLineAndWideMarkers() {
        let words = String(repeating: "word ", count: 2000)
        let parts = MarkedParts.split(words, limit: 200)
        #expect(parts.count >= 10)
        #expect(parts.allSatisfy { $0.count <= 200 })
        #expect(parts[9].hasPrefix("(10/\(parts.count)) "))
        let unbroken = String(repeating: "x", count: 1000)
        let pieces = MarkedParts.split(unbroken, limit: 100)
        #expect(pieces.allSatisfy { $0.count <= 100 })
        #expect(pieces.map { String($0.drop(while: { $0 != " " }).dropFirst()) }.joined() == unbroken)
    }
}
