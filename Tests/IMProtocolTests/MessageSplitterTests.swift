import Foundation
import IMProtocol
import Testing

/// The splitter against `Tests/Fixtures/message-splits.json`, the cases the web client's
/// `Web/app/split.js` is held to as well (in the browser, by Tests/WebTests), so the two
/// cut a long text the same way.
@Suite struct MessageSplitterTests {
    struct Case: Decodable, Sendable, CustomTestStringConvertible {
        var name: String
        var text: String
        var maxCharacters: Int
        var maxBytes: Int
        var parts: [String]
        var testDescription: String { name }
    }

    static let cases: [Case] = {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/message-splits.json")
        guard let data = try? Data(contentsOf: file), let cases = try? JSONDecoder().decode([Case].self, from: data)
        else { return [] }
        return cases
    }()

    @Test func theCasesAreThere() {
        #expect(Self.cases.count >= 10)
    }

    @Test(arguments: cases)
    func splitsAsTheSharedCasesSay(_ example: Case) {
        let parts = MessageSplitter.split(example.text, maxCharacters: example.maxCharacters, maxBytes: example.maxBytes)
        #expect(parts == example.parts)
        for part in parts {
            #expect(part.count <= example.maxCharacters)
            #expect(part.utf8.count <= example.maxBytes)
        }
    }
}
