import Foundation
import Testing
import YAMLCoding

/// The Mustache spec ships each test file as YAML and as JSON; both must hold the same data.
struct MustacheSpecTests {
    static let files: [URL] = SharedTestData.contents(of: SharedTestData.directory("mustache-spec"))
        .filter { $0.pathExtension == "yml" }

    @Test func everySpecFileIsPresent() {
        #expect(Self.files.count >= 9)
    }

    @Test(arguments: files)
    func yamlLoadsToTheSameDataAsTheJSONBesideIt(_ file: URL) throws {
        let text = try String(contentsOf: file, encoding: .utf8)
        let node = try YAMLLoader(interpolation: .disabled).load(text, file: file.lastPathComponent)
        let json = try Data(contentsOf: file.deletingPathExtension().appendingPathExtension("json"))
        let expected = try SharedTestData.jsonStream(json).map(Self.withoutGeneratorNote)
        #expect(expected.count == 1)
        let actual = Self.specValue(node)
        let difference = expected.first?.firstDifference(from: actual)
        #expect(difference == nil, "\(file.lastPathComponent): \(difference ?? "")")
    }

    /// The spec's JSON files carry a top-level `__ATTN__` note ("do not edit") that the
    /// YAML files do not.
    static func withoutGeneratorNote(_ value: YAMLValue) -> YAMLValue {
        guard case .object(let members) = value else { return value }
        return .object(members.filter { $0.key != "__ATTN__" })
    }

    /// The spec's JSON files write a `!code` mapping as the mapping plus `"__tag__": "code"`.
    static func specValue(_ node: YAMLNode) -> YAMLValue {
        switch node.content {
        case .scalar: return node.value
        case .sequence(let items): return .array(items.map(specValue))
        case .mapping(let pairs):
            var members = pairs.map { YAMLValue.Member($0.key.scalar?.text ?? "", specValue($0.value)) }
            if let tag = node.tag, tag.hasPrefix("!"), tag.count > 1 {
                members.insert(.init("__tag__", .string(String(tag.dropFirst()))), at: 0)
            }
            return .object(members)
        }
    }
}
