import Templates

/// Tags with a brace too few, the commonest slip in a template: `{{sender.nickname}`
/// (the parser then sees a tag that never closes, or one that swallows the text up to
/// the next tag's `}}`) and `{sender.nickname}}` (plain text to the parser, so it would be
/// sent as it is).
enum TemplateBraces {
    /// A sentence for a parse error that a missing `}` explains; nil otherwise.
    static func explain(_ error: TemplateError, in source: String) -> String? {
        guard error.code == .unclosedTag || error.code == .invalidName else { return nil }
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        guard error.line >= 1, error.line <= lines.count else { return nil }
        let rest = lines[error.line - 1].unicodeScalars.dropFirst(max(0, error.column - 1))
        let text = String(String.UnicodeScalarView(rest))
        guard text.hasPrefix("{{") else { return nil }
        let body = text.dropFirst(2)
        // `{{name}` followed by anything but a second `}`.
        let name = body.prefix { isNameCharacter($0) || $0 == " " }
        guard !name.trimmedWhitespace.isEmpty, body.dropFirst(name.count).first == "}",
              body.dropFirst(name.count + 1).first != "}" else { return nil }
        let tag = "{{" + name.trimmedWhitespace
        return "the tag '\(tag)}' is closed with one '}': write '\(tag)}}'"
    }

    /// `{name}}`: a tag opened with one `{`, with its 1-based line and column.
    static func looseTag(in source: String) -> (message: String, line: Int, column: Int)? {
        var line = 1
        var column = 1
        let scalars = Array(source.unicodeScalars)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "{", index == 0 || scalars[index - 1] != "{", index + 1 < scalars.count,
               scalars[index + 1] != "{" {
                var end = index + 1
                while end < scalars.count, isNameCharacter(Character(scalars[end])) { end += 1 }
                if end > index + 1, end + 1 < scalars.count, scalars[end] == "}", scalars[end + 1] == "}" {
                    let name = String(String.UnicodeScalarView(scalars[(index + 1)..<end]))
                    return ("the tag '{\(name)}}' is opened with one '{': write '{{\(name)}}'", line, column)
                }
            }
            if scalar == "\n" {
                line += 1
                column = 1
            } else {
                column += 1
            }
            index += 1
        }
        return nil
    }

    private static func isNameCharacter(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "_" || character == "." || character == "-"
    }
}
