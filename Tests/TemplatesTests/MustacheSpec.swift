import Foundation
import Templates
import Testing

/// One test case of the official Mustache specification.
struct MustacheSpecCase: Sendable, CustomTestStringConvertible {
    let module: String
    let name: String
    let summary: String
    let data: TemplateValue
    /// The case's data re-serialized as JSON, to check `Decodable` against `init(json:)`.
    let dataJSON: Data
    let template: String
    let partials: [String: String]
    let expected: String

    var testDescription: String { name }
}

/// Reads the specification from the shared test data next to the repository.
enum MustacheSpec {
    /// The core modules; the optional `~` modules (lambdas, inheritance, dynamic
    /// names) are not implemented.
    static let coreModules = ["comments", "delimiters", "interpolation", "inverted", "partials", "sections"]

    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // TemplatesTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // repository root
        .deletingLastPathComponent()  // folder holding the repository and `shared`
        .appendingPathComponent("shared/testdata/mustache-spec")

    struct FormatError: Error, CustomStringConvertible {
        let description: String
    }

    static func cases(_ module: String) throws -> [MustacheSpecCase] {
        let url = directory.appendingPathComponent("\(module).json")
        let root = try JSONSerialization.jsonObject(with: Data(contentsOf: url), options: [.fragmentsAllowed])
        guard let tests = (root as? [String: Any])?["tests"] as? [[String: Any]] else {
            throw FormatError(description: "\(url.path): no 'tests' array")
        }
        return try tests.map { test in
            guard let name = test["name"] as? String,
                  let template = test["template"] as? String,
                  let expected = test["expected"] as? String,
                  let data = test["data"] else {
                throw FormatError(description: "\(url.path): malformed test \(test["name"] ?? "?")")
            }
            return MustacheSpecCase(
                module: module,
                name: name,
                summary: test["desc"] as? String ?? "",
                data: TemplateValue(json: data),
                dataJSON: try JSONSerialization.data(withJSONObject: data, options: [.fragmentsAllowed]),
                template: template,
                partials: test["partials"] as? [String: String] ?? [:],
                expected: expected)
        }
    }

    static func allCoreCases() throws -> [MustacheSpecCase] {
        try coreModules.flatMap(cases)
    }
}
