import Templates
import YAMLCoding

/// A Mustache template written in a bot file, parsed when the file loads, with enough
/// of its position to point errors at the tag inside the YAML scalar.
struct TemplateText: Sendable, Decodable {
    /// The template text as the file holds it (after `${VAR}` interpolation).
    let source: String
    let template: Template
    /// Where the YAML scalar holding the template starts.
    let mark: YAMLMark
    /// Where the template's first character sits in the file; set only when the scalar is
    /// on one line and its text is exactly what the file shows (no escapes, no `${VAR}`),
    /// because only then do template columns map to file columns.
    let origin: YAMLMark?

    /// Parses a template that is not from a file (built-in defaults).
    init(source: String) throws(TemplateError) {
        self.source = source
        self.template = try Template(source: source, name: "template")
        self.mark = .unknown
        self.origin = nil
    }

    init(from decoder: any Decoder) throws {
        let context = decoder.botDecoding
        let node = try decoder.node()
        let text = try decoder.decodeValue(String.self)
        source = text
        mark = node.mark
        origin = Self.origin(of: node, text: text, lines: context.lines)
        do {
            template = try Template(source: text, name: "template")
        } catch {
            let at = Self.position(line: error.line, column: error.column, origin: origin, mark: mark)
            throw context.failure(.invalidTemplate, "invalid template: \(error.message)", at: at,
                                  path: decoder.codingPath)
        }
    }

    /// Whether the template has no tags that read variables, so it renders the same always.
    var isConstant: Bool { template.references.isEmpty }

    /// Renders as plain text: chat messages are not HTML.
    func render(_ context: TemplateValue) -> String {
        template.render(context, escaping: .none)
    }

    /// The file position of a line and column inside the template.
    func position(line: Int, column: Int) -> YAMLMark {
        Self.position(line: line, column: column, origin: origin, mark: mark)
    }

    private static func position(line: Int, column: Int, origin: YAMLMark?, mark: YAMLMark) -> YAMLMark {
        guard let origin, line == 1 else { return mark }
        return YAMLMark(line: origin.line, column: origin.column + column - 1)
    }

    /// The file position of the template's first character, when it can be known exactly.
    private static func origin(of node: YAMLNode, text: String, lines: [Substring]) -> YAMLMark? {
        guard let scalar = node.scalar, node.mark.isKnown, !text.contains("\n"),
              node.mark.line <= lines.count else { return nil }
        let offset: Int
        switch scalar.style {
        case .plain: offset = 0
        case .singleQuoted, .doubleQuoted: offset = 1
        case .literal, .folded: return nil
        }
        let line = lines[node.mark.line - 1].unicodeScalars
        let start = node.mark.column - 1 + offset
        guard start >= 0, start <= line.count,
              line.dropFirst(start).starts(with: text.unicodeScalars) else { return nil }
        return YAMLMark(line: node.mark.line, column: node.mark.column + offset)
    }
}
