import Foundation

/// docs/rules.md, as the tests that keep it true read it.
struct RulesDoc {
    static let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/rules.md").path

    let text: String

    init() throws {
        text = try String(contentsOfFile: Self.path, encoding: .utf8)
    }

    /// The text of the `## title` section, up to the next `## ` heading.
    func section(_ title: String) -> String {
        guard let start = text.range(of: "\n## \(title)\n") else { return "" }
        let rest = text[start.upperBound...]
        let end = rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex
        return String(rest[..<end])
    }

    /// The YAML blocks of `section` that start with `# bots/NAME.yaml`, by that file name.
    static func botFiles(in section: String) -> [(name: String, text: String)] {
        var files: [(name: String, text: String)] = []
        var rest = Substring(section)
        while let open = rest.range(of: "```yaml\n") {
            let body = rest[open.upperBound...]
            guard let close = body.range(of: "```") else { break }
            let block = String(body[..<close.lowerBound])
            if let first = block.split(separator: "\n").first, first.hasPrefix("# bots/"), first.hasSuffix(".yaml") {
                files.append((String(first.dropFirst("# bots/".count)), block))
            }
            rest = body[close.upperBound...]
        }
        return files
    }

    /// The comment after `command` in the section's shell blocks (`switchboard test x  # 4 passed`),
    /// or the comment line that follows it.
    static func claim(after command: String, in section: String) -> String? {
        let lines = section.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let index = lines.firstIndex(where: { $0.hasPrefix(command) }) else { return nil }
        if let hash = lines[index].range(of: "# ") { return String(lines[index][hash.upperBound...]) }
        guard index + 1 < lines.count, lines[index + 1].hasPrefix("# ") else { return nil }
        return String(lines[index + 1].dropFirst(2))
    }
}
