import Foundation
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
    /// How template positions map to file positions, when they can be known exactly.
    let origin: Origin?

    /// Where template text sits in the file.
    enum Origin: Sendable {
        /// A one-line plain or quoted scalar written without escapes or `${VAR}`:
        /// template column 1 is at this mark.
        case inline(YAMLMark)
        /// A literal block scalar (`|`) whose lines appear in the file as they are,
        /// indented: template line 1 is file line `firstLine`.
        case block(firstLine: Int, indent: Int)
    }

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
            let message = TemplateBraces.explain(error, in: text)
                ?? Self.fileRelative(error.message, origin: origin, mark: mark, reportedAt: at)
            throw context.failure(.invalidTemplate, "invalid template: \(message)", at: at,
                                  path: decoder.codingPath)
        }
        if let loose = TemplateBraces.looseTag(in: text) {
            throw context.failure(.invalidTemplate, "invalid template: \(loose.message)",
                                  at: Self.position(line: loose.line, column: loose.column, origin: origin, mark: mark),
                                  path: decoder.codingPath)
        }
    }

    /// Whether the template has no tags that read variables, so it renders the same always.
    var isConstant: Bool { template.references.isEmpty }

    /// Renders as plain text: chat messages are not HTML.
    func render(_ context: TemplateValue) -> String {
        template.render(context, escaping: .none)
    }

    /// Renders a URL: every variable's value percent-encoded.
    func renderURL(_ context: TemplateValue) -> String {
        template.render(context, escaping: .urlComponent)
    }

    /// The file position of a line and column inside the template.
    func position(line: Int, column: Int) -> YAMLMark {
        Self.position(line: line, column: column, origin: origin, mark: mark)
    }

    private static func position(line: Int, column: Int, origin: Origin?, mark: YAMLMark) -> YAMLMark {
        switch origin {
        case .inline(let start)? where line == 1:
            return YAMLMark(line: start.line, column: start.column + column - 1)
        case .block(let firstLine, let indent)?:
            return YAMLMark(line: firstLine + line - 1, column: indent + column)
        default:
            return mark
        }
    }

    /// The parser's message with its template positions (`opened at 1:4`) turned into
    /// file positions; dropped when unknown or equal to where the error is reported.
    private static func fileRelative(_ message: String, origin: Origin?, mark: YAMLMark,
                                     reportedAt: YAMLMark) -> String {
        guard let range = message.range(of: #" opened at [0-9]+:[0-9]+"#, options: .regularExpression) else {
            return message
        }
        let numbers = message[range].split(separator: " ").last?.split(separator: ":").compactMap { Int($0) } ?? []
        guard origin != nil, numbers.count == 2 else { return message.replacingCharacters(in: range, with: "") }
        let position = Self.position(line: numbers[0], column: numbers[1], origin: origin, mark: mark)
        guard position != reportedAt else { return message.replacingCharacters(in: range, with: "") }
        return message.replacingCharacters(in: range, with: " opened at \(position.line):\(position.column)")
    }

    /// How template positions map to the file, checked against the file's text.
    private static func origin(of node: YAMLNode, text: String, lines: [Substring]) -> Origin? {
        guard let scalar = node.scalar, node.mark.isKnown, node.mark.line <= lines.count else { return nil }
        let offset: Int
        switch scalar.style {
        case .plain: offset = 0
        case .singleQuoted, .doubleQuoted: offset = 1
        case .literal: return blockOrigin(text: text, after: node.mark.line, lines: lines)
        case .folded: return nil
        }
        guard !text.contains("\n") else { return nil }
        let line = lines[node.mark.line - 1].unicodeScalars
        let start = node.mark.column - 1 + offset
        guard start >= 0, start <= line.count,
              line.dropFirst(start).starts(with: text.unicodeScalars) else { return nil }
        return .inline(YAMLMark(line: node.mark.line, column: node.mark.column + offset))
    }

    /// A literal block's lines start on the line after its `|`, all at one indentation;
    /// the mapping holds only if every non-empty line is found there as it is.
    private static func blockOrigin(text: String, after headerLine: Int, lines: [Substring]) -> Origin? {
        let textLines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let first = textLines.firstIndex(where: { !$0.isEmpty }), headerLine + first < lines.count else {
            return nil
        }
        let sample = lines[headerLine + first]
        let indent = sample.prefix { $0 == " " }.count
        for (index, textLine) in textLines.enumerated() where !textLine.isEmpty {
            guard headerLine + index < lines.count else { return nil }
            let fileLine = lines[headerLine + index]
            guard fileLine.prefix(indent).allSatisfy({ $0 == " " }),
                  fileLine.dropFirst(indent) == textLine else { return nil }
        }
        return .block(firstLine: headerLine + 1, indent: indent)
    }
}
