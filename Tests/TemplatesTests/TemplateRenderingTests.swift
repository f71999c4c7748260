import Templates
import Testing

@Suite("Template rendering")
struct TemplateRenderingTests {
    static let alertmanagerBody: TemplateValue = [
        "status": "firing",
        "commonLabels": ["alertname": "DiskFull", "severity": "critical"],
        "alerts": [
            ["labels": ["instance": "db-1"], "annotations": ["summary": "disk at 97%"]],
            ["labels": ["instance": "db-2"], "annotations": ["summary": "disk at 99% <sda>"]],
        ],
    ]

    @Test("the alert template from the rule design renders as plain text")
    func alertExample() throws {
        let template = try Template(source: """
            🔥 {{commonLabels.alertname}} ({{alerts.length}})
            {{#alerts}}- {{labels.instance}}: {{annotations.summary}}
            {{/alerts}}
            """, name: "alerts")
        #expect(template.render(Self.alertmanagerBody, escaping: .none) == """
            🔥 DiskFull (2)
            - db-1: disk at 97%
            - db-2: disk at 99% <sda>

            """)
    }

    @Test("length after a dot is a list's element count", arguments: [
        (["items": []], "0"),
        (["items": [1, 2, 3]], "3"),
        (["items": ["length": "own key"]], "own key"),
        (["items": "text"], ""),
    ] as [(TemplateValue, String)])
    func lengthPseudoProperty(_ context: TemplateValue, _ expected: String) throws {
        #expect(try Template(source: "{{items.length}}").render(context) == expected)
    }

    @Test("a number after a dot is a list's element, counting from 1", arguments: [
        ("{{argv.1}}", "status"),
        ("{{argv.2}}", "api"),
        ("{{argv.3}}", ""),
        ("{{argv.0}}", ""),
        ("{{argv.01}}", ""),
        ("{{argv.-1}}", ""),
        ("{{rows.2.name}}", "b"),
        ("{{keyed.1}}", "own key"),
    ])
    func listPositions(_ source: String, _ expected: String) throws {
        let context: TemplateValue = [
            "argv": ["status", "api"], "rows": [["name": "a"], ["name": "b"]], "keyed": ["1": "own key"],
        ]
        #expect(try Template(source: source).render(context) == expected)
    }

    @Test("a bare length is an ordinary name, also inside a list item that is itself a list")
    func bareLengthIsOrdinary() throws {
        let template = try Template(source: "{{#lists}}[{{length}}]{{/lists}}")
        #expect(template.render(["lists": [[1, 2], [3]], "length": "L"]) == "[L][L]")
    }

    @Test("escaping .none inserts text as it is, .html escapes the five HTML characters")
    func escapingModes() throws {
        let template = try Template(source: "{{x}}|{{{x}}}|{{&x}}")
        let context: TemplateValue = ["x": "<b>Tom & 'Jerry'</b> \"q\""]
        #expect(template.render(context, escaping: .none)
            == "<b>Tom & 'Jerry'</b> \"q\"|<b>Tom & 'Jerry'</b> \"q\"|<b>Tom & 'Jerry'</b> \"q\"")
        #expect(template.render(context, escaping: .html)
            == "&lt;b&gt;Tom &amp; &#39;Jerry&#39;&lt;/b&gt; &quot;q&quot;|<b>Tom & 'Jerry'</b> \"q\"|<b>Tom & 'Jerry'</b> \"q\"")
        #expect(template.render(context) == template.render(context, escaping: .html))
    }

    @Test("escaping keeps a combining mark attached to an escaped character")
    func escapingWithCombiningMarks() throws {
        let rendered = try Template(source: "{{x}}").render(["x": "a&\u{301}b"], escaping: .html)
        #expect(Array(rendered.unicodeScalars) == Array("a&amp;\u{301}b".unicodeScalars))
    }

    @Test("an empty string is falsey, zero is truthy")
    func sectionTruthiness() throws {
        let template = try Template(source: "{{#note}}Note: {{note}}{{/note}}{{^note}}none{{/note}}/{{#n}}n={{n}}{{/n}}")
        #expect(template.render(["note": "", "n": 0]) == "none/n=0")
        #expect(template.render(["note": "hi", "n": 2]) == "Note: hi/n=2")
    }

    @Test("an inverted section renders in the enclosing context")
    func invertedSectionKeepsContext() throws {
        let template = try Template(source: "{{^alerts}}no alerts for {{team}}{{/alerts}}")
        #expect(template.render(["alerts": [], "team": "ops"]) == "no alerts for ops")
    }

    @Test("a partial that includes itself forever stops at the depth limit")
    func partialRecursionIsBounded() throws {
        let loop = try Template(source: "x{{>loop}}", name: "loop")
        let rendered = try Template(source: "{{>loop}}").render([:], partials: ["loop": loop])
        #expect(rendered == String(repeating: "x", count: Template.maximumPartialDepth))
    }

    @Test("a standalone partial inside an indented partial adds both indentations")
    func nestedPartialIndentation() throws {
        let partials = [
            "outer": try Template(source: "A\n  {{>inner}}\nZ {{>inner}}\n"),
            "inner": try Template(source: "B1\nB2\n"),
        ]
        let rendered = try Template(source: "  {{>outer}}\n").render([:], partials: partials)
        #expect(rendered == "  A\n    B1\n    B2\n  Z B1\nB2\n\n")
    }

    @Test("Windows line endings are kept, and standalone tags remove their whole line")
    func crlfTemplates() throws {
        let template = try Template(source: "a\r\n{{#s}}\r\n  {{x}}\r\n{{/s}}\r\nb")
        #expect(template.render(["s": true, "x": 1]) == "a\r\n  1\r\nb")
    }

    @Test("a parsed template renders the same from many tasks at once")
    func concurrentRendering() async throws {
        let template = try Template(source: "{{#alerts}}{{labels.instance}} {{/alerts}}")
        let expected = "db-1 db-2 "
        let results = await withTaskGroup(of: String.self) { group in
            for _ in 0..<32 {
                group.addTask { template.render(Self.alertmanagerBody, escaping: .none) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 32)
        #expect(results.allSatisfy { $0 == expected })
    }
}
