import Templates
import Testing

/// Malformed and unusual sources must produce a positioned error or a render,
/// never a crash or a hang.
@Suite("Template robustness")
struct TemplateRobustnessTests {
    /// Pieces that combine into valid, half-valid and broken templates.
    static let fragments = [
        "{{", "}}", "{{{", "}}}", "{{#a}}", "{{/a}}", "{{^b}}", "{{/b}}", "{{#.}}", "{{/.}}",
        "{{a.b}}", "{{.}}", "{{&c}}", "{{! c }}", "{{>p}}", "{{=<% %>=}}", "<%x%>", "<%={{ }}=%>",
        "{{=", "=}}", "text", " ", "  ", "\n", "\r\n", "\t", "é", "🔥", "{{a.length}}", "}", "{",
    ]

    /// A small deterministic generator, so a failure is reproducible from its seed.
    struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    @Test("random fragment soups either parse and render or fail with a position inside the source",
          arguments: 0..<200)
    func randomSources(seed: Int) {
        var generator = Generator(state: UInt64(seed))
        var source = ""
        for _ in 0..<generator.next(24) {
            source += Self.fragments[generator.next(Self.fragments.count)]
        }
        let context: TemplateValue = ["a": [["b": 1], ["b": "x"]], "b": false, "c": "<&>", "x": 2.5]
        do {
            let partial = try Template(source: "[{{a.b}}]\n{{>p}}")
            let template = try Template(source: source, name: "fuzz")
            _ = template.render(context, partials: ["p": partial], escaping: .html)
            _ = template.render(context, partials: ["p": partial], escaping: .none)
        } catch {
            // Split scalars, not Characters: "\r\n" is one Character but two scalars.
            let lines = source.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(error.line >= 1 && error.line <= lines.count, "\(error) for \(source.debugDescription)")
            if error.line >= 1 && error.line <= lines.count {
                let lineLength = lines[error.line - 1].count
                #expect(error.column >= 1 && error.column <= lineLength, "\(error) for \(source.debugDescription)")
            }
        }
    }

    // Found by the template fuzz target (Fuzz/Corpus/template/partial-fan-out-hang): a
    // partial including itself twice or more renders 2^16 or more copies of itself, and
    // sections nested over one list multiply the same way.
    @Test("work that multiplies stops at the render's budget",
          arguments: ["{{>self}}{{>self}}{{>self}}x", String(repeating: "{{#l}}", count: 24) + "." + String(repeating: "{{/l}}", count: 24)])
    func multiplyingWorkStops(source: String) throws {
        let template = try Template(source: source, name: "self")
        let output = template.render(["l": [1, 2, 3, 4]], partials: ["self": template], escaping: .none)
        #expect(!output.isEmpty)
        #expect(output.utf8.count <= Template.maximumRenderSteps)
    }

    @Test("a loop over long values stops once the output is past its bound")
    func outputIsBounded() throws {
        let long = String(repeating: "x", count: 100_000)
        let items = TemplateValue.array(Array(repeating: .string(long), count: 100))
        let output = try Template(source: "{{#items}}{{.}}{{/items}}").render(["items": items], escaping: .none)
        #expect(output.utf8.count > Template.maximumOutputBytes)
        #expect(output.utf8.count <= Template.maximumOutputBytes + long.utf8.count)
    }

    @Test("a template without tags renders as its own source")
    func plainText() throws {
        let source = "no tags here { } }} \r\n🔥 & <b>\n"
        #expect(try Template(source: source).render(nil, escaping: .html) == source)
    }

    @Test("an empty template renders nothing and references nothing")
    func emptyTemplate() throws {
        let template = try Template(source: "")
        #expect(template.render(["a": 1]) == "")
        #expect(template.references.isEmpty)
    }
}
