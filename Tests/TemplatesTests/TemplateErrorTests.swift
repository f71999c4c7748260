import Templates
import Testing

@Suite("Template parse errors")
struct TemplateErrorTests {
    struct BadSource: Sendable, CustomTestStringConvertible {
        let source: String
        let code: TemplateError.Code
        let line: Int
        let column: Int
        var testDescription: String { "\(code): \(source.debugDescription)" }
    }

    static let badSources: [BadSource] = [
        BadSource(source: "Hi\n{{#alerts}}\n- {{x}}\n", code: .unclosedSection, line: 2, column: 1),
        BadSource(source: "{{#a}}{{#b}}{{/a}}{{/b}}", code: .mismatchedSectionEnd, line: 1, column: 13),
        BadSource(source: "text\n  {{/a}}", code: .unexpectedSectionEnd, line: 2, column: 3),
        BadSource(source: "🔥 {{name", code: .unclosedTag, line: 1, column: 3),
        BadSource(source: "{{{name}}", code: .unclosedTag, line: 1, column: 1),
        BadSource(source: "a\nb {{=<% =}}", code: .invalidDelimiters, line: 2, column: 3),
        BadSource(source: "{{=a= b=}}", code: .invalidDelimiters, line: 1, column: 1),
        BadSource(source: "{{=<% %> x=}}", code: .invalidDelimiters, line: 1, column: 1),
        BadSource(source: "{{=<% %>=}}<%x", code: .unclosedTag, line: 1, column: 12),
        BadSource(source: "x {{}}", code: .invalidName, line: 1, column: 3),
        BadSource(source: "{{a b}}", code: .invalidName, line: 1, column: 1),
        BadSource(source: "{{a..b}}", code: .invalidName, line: 1, column: 1),
        BadSource(source: "{{#.a}}{{/.a}}", code: .invalidName, line: 1, column: 1),
        BadSource(source: "{{> }}", code: .invalidName, line: 1, column: 1),
    ]

    @Test("a malformed template throws the expected code at the offending tag", arguments: badSources)
    func reportsCodeAndPosition(_ bad: BadSource) {
        #expect {
            _ = try Template(source: bad.source, name: "t")
        } throws: { error in
            guard let error = error as? TemplateError else { return false }
            return error.code == bad.code && error.line == bad.line && error.column == bad.column
        }
    }

    @Test("an unclosed section names the section and where it was opened")
    func unclosedSectionMessage() throws {
        let error = try #require(throws: TemplateError.self) {
            try Template(source: "🔥 {{title}}\n{{#alerts}}- {{labels.instance}}\n", name: "bots/alerts.yaml")
        }
        #expect(error.message == "unclosed section 'alerts' opened at 2:1")
        #expect(error.description == "bots/alerts.yaml:2:1: unclosed section 'alerts' opened at 2:1")
    }

    @Test("a mismatched section end names both sections")
    func mismatchedSectionMessage() throws {
        let error = try #require(throws: TemplateError.self) {
            try Template(source: "{{#a}}\n  {{#b}}x{{/a}}", name: "t")
        }
        #expect(error.code == .mismatchedSectionEnd)
        #expect(error.message == "section end 'a' does not match section 'b' opened at 2:3")
        #expect((error.line, error.column) == (2, 10))
    }

    @Test("sections nested deeper than the limit are rejected instead of overflowing the stack")
    func nestingLimit() throws {
        let depth = Template.maximumNesting + 1
        let source = String(repeating: "{{#a}}", count: depth) + String(repeating: "{{/a}}", count: depth)
        let error = try #require(throws: TemplateError.self) { try Template(source: source) }
        #expect(error.code == .nestingTooDeep)
        #expect(error.column == Template.maximumNesting * 6 + 1)

        let allowed = Template.maximumNesting
        let fine = String(repeating: "{{#a}}", count: allowed) + "x" + String(repeating: "{{/a}}", count: allowed)
        #expect(try Template(source: fine).render(["a": true]) == "x")
    }

    @Test("positions after a delimiter change point at the new delimiters")
    func positionsAfterDelimiterChange() throws {
        let error = try #require(throws: TemplateError.self) {
            try Template(source: "{{=[ ]=}}\n\t[#x]", name: "t")
        }
        #expect(error.code == .unclosedSection)
        #expect((error.line, error.column) == (2, 2))
    }
}
