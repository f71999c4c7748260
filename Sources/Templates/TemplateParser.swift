/// Turns template source into the flat node array and the reference list, in one pass.
///
/// Works on UTF-8 bytes: every delimiter and sigil is located by byte comparison, and
/// text is decoded once per line when the node is made.
struct TemplateParser {
    /// What a tag does, from the sigil that follows its opening delimiter.
    private enum TagKind {
        case variable, unescaped, section, inverted, close, partial, comment, delimiters

        /// Tags that, alone on a line, remove that whole line from the output.
        var canStandAlone: Bool {
            switch self {
            case .variable, .unescaped: false
            case .section, .inverted, .close, .partial, .comment, .delimiters: true
            }
        }
    }

    /// A tag as read from the source: byte offsets and trimmed content.
    private struct Tag {
        var kind: TagKind
        var start: Int
        var end: Int
        var content: String
    }

    /// A section whose closing tag has not been seen yet.
    private struct OpenSection {
        var nodeIndex: Int
        var name: String
        var frame: TemplateReference.Section
    }

    private let bytes: [UInt8]
    private let templateName: String
    private let lineStarts: [Int]
    private var openDelimiter: [UInt8] = Array("{{".utf8)
    private var closeDelimiter: [UInt8] = Array("}}".utf8)
    private var nodes: [TemplateNode] = []
    private var references: [TemplateReference] = []
    private var openSections: [OpenSection] = []
    private var lastLocation: (offset: Int, line: Int, column: Int)?

    init(source: String, name: String) {
        bytes = Array(source.utf8)
        templateName = name
        var starts = [0]
        for (offset, byte) in bytes.enumerated() where byte == .newline {
            starts.append(offset + 1)
        }
        lineStarts = starts
    }

    /// Parses the whole source.
    mutating func parse() throws(TemplateError) -> (nodes: [TemplateNode], references: [TemplateReference]) {
        var textStart = 0
        var searchFrom = 0
        while let tagStart = find(openDelimiter, from: searchFrom) {
            let tag = try readTag(at: tagStart)
            if tag.kind.canStandAlone, let line = standaloneLine(of: tag) {
                emitText(textStart..<line.lowerBound)
                try apply(tag, indentation: string(line.lowerBound..<tag.start))
                textStart = line.upperBound
            } else {
                emitText(textStart..<tag.start)
                if isLineStart(tag.start) { nodes.append(.lineStart) }
                try apply(tag, indentation: nil)
                textStart = tag.end
            }
            searchFrom = textStart
        }
        emitText(textStart..<bytes.count)
        if let unclosed = openSections.last {
            let frame = unclosed.frame
            throw error(.unclosedSection, at: frame.line, frame.column,
                        "unclosed section '\(unclosed.name)' opened at \(frame.line):\(frame.column)")
        }
        return (nodes, references)
    }

    // MARK: Tags

    /// Reads the tag starting at `start`: its sigil, content and end offset.
    private mutating func readTag(at start: Int) throws(TemplateError) -> Tag {
        var cursor = start + openDelimiter.count
        while cursor < bytes.count, bytes[cursor].isBlank { cursor += 1 }
        var kind = TagKind.variable
        var closing = closeDelimiter
        if cursor < bytes.count {
            switch bytes[cursor] {
            case UInt8(ascii: "!"): kind = .comment
            case UInt8(ascii: "#"): kind = .section
            case UInt8(ascii: "^"): kind = .inverted
            case UInt8(ascii: "/"): kind = .close
            case UInt8(ascii: ">"): kind = .partial
            case UInt8(ascii: "&"): kind = .unescaped
            case UInt8(ascii: "{"): kind = .unescaped; closing = [UInt8(ascii: "}")] + closeDelimiter
            case UInt8(ascii: "="): kind = .delimiters; closing = [UInt8(ascii: "=")] + closeDelimiter
            default: break
            }
            if kind != .variable { cursor += 1 }
        }
        guard let contentEnd = find(closing, from: cursor) else {
            let (line, column) = location(of: start)
            throw error(.unclosedTag, at: line, column,
                        "unclosed tag '\(String(decoding: openDelimiter, as: UTF8.self))': "
                            + "no '\(String(decoding: closing, as: UTF8.self))' before the end of the template")
        }
        let content = string(cursor..<contentEnd).trimmingBlanks()
        return Tag(kind: kind, start: start, end: contentEnd + closing.count, content: content)
    }

    /// Adds the nodes and references a tag stands for.
    private mutating func apply(_ tag: Tag, indentation: String?) throws(TemplateError) {
        let (line, column) = location(of: tag.start)
        switch tag.kind {
        case .comment:
            break
        case .variable, .unescaped:
            let path = try path(of: tag, line: line, column: column)
            record(.variable, path, line, column)
            nodes.append(.variable(path: path, escaped: tag.kind == .variable))
        case .section, .inverted:
            let path = try path(of: tag, line: line, column: column)
            let inverted = tag.kind == .inverted
            guard openSections.count < Template.maximumNesting else {
                throw error(.nestingTooDeep, at: line, column,
                            "section '\(tag.content)' is nested deeper than \(Template.maximumNesting) sections")
            }
            record(inverted ? .invertedSection : .section, path, line, column)
            let frame = TemplateReference.Section(path: path, inverted: inverted, line: line, column: column)
            openSections.append(OpenSection(nodeIndex: nodes.count, name: tag.content, frame: frame))
            nodes.append(.section(path: path, inverted: inverted, end: nodes.count + 1))
        case .close:
            guard let open = openSections.popLast() else {
                throw error(.unexpectedSectionEnd, at: line, column,
                            "section end '\(tag.content)' has no matching section start")
            }
            guard open.name == tag.content else {
                throw error(.mismatchedSectionEnd, at: line, column,
                            "section end '\(tag.content)' does not match section '\(open.name)' "
                                + "opened at \(open.frame.line):\(open.frame.column)")
            }
            nodes[open.nodeIndex] = .section(path: open.frame.path, inverted: open.frame.inverted, end: nodes.count)
        case .partial:
            guard !tag.content.isEmpty else {
                throw error(.invalidName, at: line, column, "partial tag without a name")
            }
            record(.partial, [tag.content], line, column)
            nodes.append(.partial(name: tag.content, indentation: indentation))
        case .delimiters:
            try setDelimiters(tag, line: line, column: column)
        }
    }

    /// Splits a variable or section name at dots, rejecting names that can never match.
    private func path(of tag: Tag, line: Int, column: Int) throws(TemplateError) -> [String] {
        let name = tag.content
        if name == "." { return [] }
        guard !name.isEmpty else {
            throw error(.invalidName, at: line, column, "empty tag: expected a name between the delimiters")
        }
        guard !name.utf8.contains(where: \.isBlank) else {
            throw error(.invalidName, at: line, column, "invalid name '\(name)': names cannot contain blanks")
        }
        let components = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !components.contains(where: \.isEmpty) else {
            throw error(.invalidName, at: line, column, "invalid name '\(name)': empty component between dots")
        }
        return components
    }

    /// Applies `{{=<% %>=}}`: two delimiters without blanks or `=`.
    private mutating func setDelimiters(_ tag: Tag, line: Int, column: Int) throws(TemplateError) {
        let parts = tag.content.utf8.split(whereSeparator: \.isBlank)
        guard parts.count == 2, !parts.contains(where: { $0.contains(UInt8(ascii: "=")) }) else {
            throw error(.invalidDelimiters, at: line, column,
                        "invalid set-delimiter tag '=\(tag.content)=': expected two delimiters "
                            + "separated by a space, without '=' or blanks, as in {{=<% %>=}}")
        }
        openDelimiter = Array(parts[0])
        closeDelimiter = Array(parts[1])
    }

    private mutating func record(_ kind: TemplateReference.Kind, _ path: [String], _ line: Int, _ column: Int) {
        references.append(TemplateReference(kind: kind, path: path, line: line, column: column,
                                            sectionStack: openSections.map(\.frame)))
    }

    // MARK: Text and lines

    /// The bounds of the tag's line when only blanks surround it: from the line start
    /// to just past its newline (or the end of the source).
    private func standaloneLine(of tag: Tag) -> Range<Int>? {
        var start = tag.start
        while start > 0, bytes[start - 1] != .newline {
            guard bytes[start - 1].isInlineBlank else { return nil }
            start -= 1
        }
        var end = tag.end
        while end < bytes.count, bytes[end].isInlineBlank { end += 1 }
        if end == bytes.count { return start..<end }
        if bytes[end] == .newline { return start..<(end + 1) }
        if bytes[end] == .carriageReturn, end + 1 < bytes.count, bytes[end + 1] == .newline {
            return start..<(end + 2)
        }
        return nil
    }

    /// Appends text one line per node, marking where non-empty source lines begin.
    private mutating func emitText(_ range: Range<Int>) {
        var start = range.lowerBound
        while start < range.upperBound {
            var end = start
            while end < range.upperBound, bytes[end] != .newline { end += 1 }
            if end < range.upperBound { end += 1 }
            let blankLine = bytes[start] == .newline
                || (bytes[start] == .carriageReturn && start + 1 < end && bytes[start + 1] == .newline)
            if isLineStart(start), !blankLine { nodes.append(.lineStart) }
            nodes.append(.text(string(start..<end)))
            start = end
        }
    }

    private func isLineStart(_ offset: Int) -> Bool {
        offset == 0 || bytes[offset - 1] == .newline
    }

    private func find(_ needle: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, needle.count <= bytes.count else { return nil }
        var index = start
        let last = bytes.count - needle.count
        while index <= last {
            if bytes[index] == first, bytes[index ..< index + needle.count].elementsEqual(needle) {
                return index
            }
            index += 1
        }
        return nil
    }

    private func string(_ range: Range<Int>) -> String {
        String(decoding: bytes[range], as: UTF8.self)
    }

    /// 1-based line and column (in Unicode scalars) of a byte offset.
    ///
    /// Tags arrive in source order, so counting resumes from the previous answer when
    /// it is on the same line; a long single-line template stays linear to parse.
    private mutating func location(of offset: Int) -> (line: Int, column: Int) {
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        var from = lineStarts[low]
        var column = 1
        if let last = lastLocation, last.line == low + 1, last.offset <= offset {
            from = last.offset
            column = last.column
        }
        for byte in bytes[from..<offset] where byte & 0xC0 != 0x80 { column += 1 }
        lastLocation = (offset, low + 1, column)
        return (low + 1, column)
    }

    private func error(_ code: TemplateError.Code, at line: Int, _ column: Int, _ message: String) -> TemplateError {
        TemplateError(code: code, message: message, templateName: templateName, line: line, column: column)
    }
}

extension UInt8 {
    fileprivate static let newline = UInt8(ascii: "\n")
    fileprivate static let carriageReturn = UInt8(ascii: "\r")

    /// Space or tab: what may surround a standalone tag on its line.
    fileprivate var isInlineBlank: Bool { self == 0x20 || self == 0x09 }

    /// Any ASCII whitespace: what is trimmed inside tags.
    fileprivate var isBlank: Bool { self == 0x20 || self == 0x09 || self == 0x0A || self == 0x0D }
}

extension String {
    /// The string without leading and trailing ASCII whitespace.
    fileprivate func trimmingBlanks() -> String {
        let view = utf8
        guard let first = view.firstIndex(where: { !$0.isBlank }),
              let last = view.lastIndex(where: { !$0.isBlank }) else { return "" }
        return String(decoding: view[first...last], as: UTF8.self)
    }
}
