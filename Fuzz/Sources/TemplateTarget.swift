import Foundation
import Templates

/// Mustache templates: the input is a template, optionally followed by a NUL byte and a
/// JSON document to render it against (a fixed context otherwise). The template is also
/// its own partial, `{{>self}}`, so partial recursion is reached.
///
/// Invariants: a template parses or fails with a position inside the source; rendering
/// finishes (libFuzzer's timeout catches runaway output) and does not depend on the run.
struct TemplateTarget: FuzzTarget {
    static let context: TemplateValue = [
        "name": "Ada <admin> & \"co\"",
        "n": 3,
        "flag": true,
        "none": nil,
        "list": [1, "two", ["three": 3], [4, 5]],
        "alerts": [["labels": ["alertname": "Down", "severity": "page"], "status": "firing"]],
        "nested": ["a": ["b": ["c": "deep"]]],
        "empty": [],
    ]

    init() {}

    func run(_ input: [UInt8]) {
        let (sourceBytes, contextBytes) = input.split(at: 0)
        guard let source = sourceBytes.utf8Text else { return }
        let context = contextBytes.isEmpty
            ? Self.context : (try? JSONDecoder().decode(TemplateValue.self, from: Data(contextBytes))) ?? Self.context
        let template: Template
        do {
            template = try Template(source: source, name: "fuzz")
        } catch {
            let lines = source.utf8.count { $0 == UInt8(ascii: "\n") } + 1
            require(error.line >= 1 && error.line <= lines, "error line \(error.line) outside \(lines) lines: \(error)")
            require(!error.message.isEmpty, "an error without a message")
            return
        }
        let partials = ["self": template]
        let html = template.render(context, partials: partials, escaping: .html)
        let plain = template.render(context, partials: partials, escaping: .none)
        require(template.render(context, partials: partials, escaping: .html) == html, "two renders differ")
        if !source.contains("{{{"), !source.contains("{{&"), !source.contains("="),
           html.utf8.count <= Template.maximumOutputBytes {
            // Escaping only ever lengthens what a variable inserts (unless the escaped
            // render stopped at the output bound first).
            require(html.utf8.count >= plain.utf8.count, "escaped output shorter than plain output")
        }
    }
}
