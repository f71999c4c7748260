import Foundation
import Templates
import Testing

@Suite("Template values")
struct TemplateValueTests {
    @Test("numbers interpolate without a spurious fractional part", arguments: [
        (TemplateValue.int(85), "85"),
        (.int(-3), "-3"),
        (.double(1.21), "1.21"),
        (.double(2.0), "2"),
        (.double(-0.5), "-0.5"),
        (.double(1e20), "1e+20"),
        (.double(123_456_789_012.0), "123456789012"),
        (.double(1e300), "1e+300"),
        (.double(0.1 + 0.2), "0.30000000000000004"),
    ])
    func numberFormatting(_ value: TemplateValue, _ text: String) throws {
        #expect(value.interpolatedText == text)
        #expect(try Template(source: "{{n}}").render(["n": value]) == text)
    }

    @Test("JSON booleans stay booleans and are not confused with 1 and 0")
    func jsonBooleans() throws {
        let json = try JSONSerialization.jsonObject(with: Data(#"[true, 1, 0, false, 1.5, 1.0, null, "x"]"#.utf8))
        #expect(TemplateValue(json: json) == [true, 1, 0, false, 1.5, 1.0, nil, "x"])
    }

    @Test("JSON numbers beyond Int become doubles")
    func hugeNumbers() throws {
        let json = try JSONSerialization.jsonObject(with: Data("[18446744073709551615]".utf8))
        #expect(TemplateValue(json: json) == [.double(18446744073709551616)])
    }

    @Test("native Swift values convert, and unknown types become their description")
    func nativeValues() {
        let missing: Int? = nil
        let value = TemplateValue(json: [
            "flag": true, "small": Int8(3), "float": Float(1.5), "sub": "abc".dropFirst(),
            "missing": missing as Any, "date": Date(timeIntervalSince1970: 0),
            "nested": [["k": [1, 2]]],
        ] as [String: Any])
        #expect(value == [
            "flag": true, "small": 3, "float": 1.5, "sub": "bc", "missing": nil,
            "date": .string(Date(timeIntervalSince1970: 0).description),
            "nested": [["k": [1, 2]]],
        ])
    }

    @Test("JSONDecoder decodes every kind of value and encoding round-trips")
    func codableRoundTrip() throws {
        let json = #"{"a": [1, 2.5, "s", true, null, {"b": {}}], "c": -7}"#
        let value = try JSONDecoder().decode(TemplateValue.self, from: Data(json.utf8))
        #expect(value == ["a": [1, 2.5, "s", true, nil, ["b": [:]]], "c": -7])
        let again = try JSONDecoder().decode(TemplateValue.self, from: JSONEncoder().encode(value))
        #expect(again == value)
    }

    @Test("a dictionary literal with a repeated key keeps the last value")
    func repeatedLiteralKeys() {
        let value: TemplateValue = ["k": 1, "k": 2]
        #expect(value["k"] == 2)
    }

    @Test("falsey values are null, false, the empty string and the empty list")
    func truthiness() {
        let falsey: [TemplateValue] = [nil, false, "", []]
        let truthy: [TemplateValue] = [true, 0, 0.0, "0", [nil], [:]]
        #expect(falsey.allSatisfy { !$0.isTruthy })
        #expect(truthy.allSatisfy { $0.isTruthy })
    }

    @Test("lists interpolate as their elements joined by a comma, objects as nothing")
    func containerInterpolation() {
        #expect((["a", 1, 2.5, true] as TemplateValue).interpolatedText == "a, 1, 2.5, true")
        #expect((["k": "v"] as TemplateValue).interpolatedText == "")
    }
}
