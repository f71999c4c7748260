import Templates
import Testing

@Suite("Template references")
struct TemplateReferenceTests {
    static let alertSource = """
        🔥 {{commonLabels.alertname}} ({{alerts.length}})
        {{#alerts}}- {{labels.instance}}: {{{annotations.summary}}}
        {{/alerts}}{{^alerts}}{{nobody}}{{/alerts}}{{>footer}}
        """

    @Test("references list every name with its kind, position and enclosing sections")
    func listsReferences() throws {
        let template = try Template(source: Self.alertSource)
        let alerts = TemplateReference.Section(path: ["alerts"], inverted: false, line: 2, column: 1)
        let noAlerts = TemplateReference.Section(path: ["alerts"], inverted: true, line: 3, column: 12)
        #expect(template.references == [
            TemplateReference(kind: .variable, path: ["commonLabels", "alertname"], line: 1, column: 3, sectionStack: []),
            TemplateReference(kind: .variable, path: ["alerts", "length"], line: 1, column: 31, sectionStack: []),
            TemplateReference(kind: .section, path: ["alerts"], line: 2, column: 1, sectionStack: []),
            TemplateReference(kind: .variable, path: ["labels", "instance"], line: 2, column: 14, sectionStack: [alerts]),
            TemplateReference(kind: .variable, path: ["annotations", "summary"], line: 2, column: 35, sectionStack: [alerts]),
            TemplateReference(kind: .invertedSection, path: ["alerts"], line: 3, column: 12, sectionStack: []),
            TemplateReference(kind: .variable, path: ["nobody"], line: 3, column: 23, sectionStack: [noAlerts]),
            TemplateReference(kind: .partial, path: ["footer"], line: 3, column: 44, sectionStack: []),
        ])
        #expect(template.references.map(\.name)
            == ["commonLabels.alertname", "alerts.length", "alerts", "labels.instance",
                "annotations.summary", "alerts", "nobody", "footer"])
    }

    @Test("unknown roots are reported outside sections and inside inverted sections only")
    func unknownReferencesOutsideSections() throws {
        let template = try Template(source: Self.alertSource)
        let unknown = template.unknownReferences(knownRoots: ["commonLabels", "alerts"])
        #expect(unknown.map(\.name) == ["nobody"])
        #expect(unknown.map(\.description) == ["3:23: nobody"])
    }

    @Test("with no known roots, every top-level name is reported, but never . or partials")
    func unknownReferencesWithNoRoots() throws {
        let template = try Template(source: "{{.}} {{#a}}{{b}}{{.}}{{/a}} {{c.d}} {{>p}}")
        #expect(template.unknownReferences(knownRoots: []).map(\.name) == ["a", "c.d"])
        #expect(template.unknownReferences(knownRoots: ["a", "c"]).isEmpty)
    }

    @Test("a section over a known root hides the names inside it from the check")
    func namesInsideKnownSection() throws {
        let template = try Template(source: "{{#sender}}{{nickname}} {{typo}}{{/sender}} {{sendr.nickname}}")
        let unknown = template.unknownReferences(knownRoots: ["sender", "message"])
        #expect(unknown.map(\.name) == ["sendr.nickname"])
        #expect(unknown.first?.isInsideContextSection == false)
        #expect(template.references[1].isInsideContextSection)
    }

    @Test("the implicit iterator has an empty path")
    func implicitIteratorPath() throws {
        let template = try Template(source: "{{#list}}{{.}}{{/list}}")
        #expect(template.references.map(\.path) == [["list"], []])
        #expect(template.references.map(\.name) == ["list", "."])
    }
}
