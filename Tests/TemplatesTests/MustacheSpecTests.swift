import Foundation
import Templates
import Testing

/// Every case of the core Mustache specification, rendered with HTML escaping.
@Suite("Mustache specification")
struct MustacheSpecTests {
    private func check(_ specCase: MustacheSpecCase) throws {
        let partials = try specCase.partials.mapValues { source in
            try Template(source: source, name: "partial")
        }
        let template = try Template(source: specCase.template, name: specCase.name)
        let rendered = template.render(specCase.data, partials: partials, escaping: .html)
        #expect(rendered == specCase.expected, "\(specCase.module): \(specCase.name): \(specCase.summary)")
    }

    @Test("comments", arguments: try MustacheSpec.cases("comments"))
    func comments(_ specCase: MustacheSpecCase) throws { try check(specCase) }

    @Test("delimiters", arguments: try MustacheSpec.cases("delimiters"))
    func delimiters(_ specCase: MustacheSpecCase) throws { try check(specCase) }

    @Test("interpolation", arguments: try MustacheSpec.cases("interpolation"))
    func interpolation(_ specCase: MustacheSpecCase) throws { try check(specCase) }

    @Test("inverted", arguments: try MustacheSpec.cases("inverted"))
    func inverted(_ specCase: MustacheSpecCase) throws { try check(specCase) }

    @Test("partials", arguments: try MustacheSpec.cases("partials"))
    func partials(_ specCase: MustacheSpecCase) throws { try check(specCase) }

    @Test("sections", arguments: try MustacheSpec.cases("sections"))
    func sections(_ specCase: MustacheSpecCase) throws { try check(specCase) }

    @Test("every core module is present and non-empty, and no other core module exists")
    func coreModulesAreAllRun() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: MustacheSpec.directory.path)
        let core = files.filter { $0.hasSuffix(".json") && !$0.hasPrefix("~") }
            .map { String($0.dropLast(".json".count)) }
        #expect(core.sorted() == MustacheSpec.coreModules)
        for module in MustacheSpec.coreModules {
            #expect(try !MustacheSpec.cases(module).isEmpty, "\(module).json has no cases")
        }
    }

    @Test("decoding spec data with JSONDecoder gives the same value as init(json:)",
          arguments: try MustacheSpec.allCoreCases())
    func decodableMatchesJSONSerialization(_ specCase: MustacheSpecCase) throws {
        let decoded = try JSONDecoder().decode(TemplateValue.self, from: specCase.dataJSON)
        #expect(decoded == specCase.data)
    }
}
